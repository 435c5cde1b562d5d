@echo off
rem Windows twin of pulumi-resource-flagstack: run the provider with Node.js directly.
node "%~dp0index.js" %*
