/**
 * A module to preload with `node -r`: the process behaves as where `@pulumi/...` is not installed
 * (an optional peer dependency), and each attempt to load it is written on stderr
 * (`loaded <request>`), so a test can assert which, if any, a command asked for.
 */
export const NO_PULUMI_HOOK = `"use strict";
const Module = require("node:module");
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request.startsWith("@pulumi/")) {
    process.stderr.write("loaded " + request + "\\n");
    const e = new Error("Cannot find module '" + request + "'");
    e.code = "MODULE_NOT_FOUND";
    throw e;
  }
  return resolve.call(this, request, ...rest);
};
`;
