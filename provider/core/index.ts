/**
 * Shared lifecycle helpers of every flagstack resource: configuration and process-wide clients,
 * `check` from a zod schema, `diff` from data, idempotent read/delete, create-or-adopt, and JSON
 * Patch guards.
 * @module
 */
export * from "./check";
export * from "./config";
export * from "./diff";
export * from "./lifecycle";
export * from "./patch";
export * from "./resource";
