// Stylesheets imported for esbuild to bundle into explorer.css.
declare module '*.css';
