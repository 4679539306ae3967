// Runs a TypeScript script directly (dev tooling only): transpile on require with the project's
// own TypeScript compiler, then resolve @hadron/* aliases to the sources.
const Module = require('module');
const path = require('path');
const fs = require('fs');
const ts = require('typescript');
const root = path.resolve(__dirname, '..');
const { config } = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
const options = { ...config.compilerOptions, module: 'commonjs', sourceMap: false, inlineSourceMap: true, incremental: false };
delete options.tsBuildInfoFile;
const compilerOptions = ts.convertCompilerOptionsFromJson(options, root).options;
require.extensions['.ts'] = function (module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions, fileName: filename });
  module._compile(outputText, filename);
};
const original = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const m = /^@hadron\/(domain|contracts|platform|client)(\/.*)?$/.exec(request);
  if (m) request = path.join(root, 'libs', m[1], 'src', m[2] ?? '');
  return original.call(this, request, ...rest);
};
