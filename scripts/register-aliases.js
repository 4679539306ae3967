// Resolves the @hadron/<lib> path aliases of tsconfig.json for the compiled output in dist/.
// Our own ten lines instead of a dependency: tsc does not rewrite path aliases.
const Module = require('module');
const path = require('path');
const dist = path.resolve(__dirname, '..', 'dist', 'libs');
const original = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const m = /^@hadron\/(domain|contracts|platform|client)(\/.*)?$/.exec(request);
  if (m) request = path.join(dist, m[1], 'src', m[2] ?? '');
  return original.call(this, request, ...rest);
};
