/**
 * Platform pipelines, in one package (`../shared/spec/platform-api.md` §2 "Pipeline"; real-world
 * shape and rules from `../shared/reference/platform-api-behaviour.md` §3, §6-§7, cited "ref §N"):
 *
 * - `grammar.ts`: identifiers, names, durations, expressions, runtime inputs and the size bound,
 *   written once; the provider, the emulator and the policy pack decide with these functions.
 * - `runtime-input.ts`: {@link runtimeInput}, a typed `<+input>` with its options.
 * - `model.ts`: {@link PipelineModel} (zod), the typed model and the single source of its types.
 * - `wire.ts`: {@link PipelineDocument}, the YAML document the model renders to and parses from.
 * - `render.ts`: {@link renderPipelineYaml}, deterministic (same model, same bytes).
 * - `parse.ts`: {@link parsePipelineYaml}, strict (duplicate keys and unknown fields refused).
 * - `compare.ts`: {@link pipelinesEqual}, by meaning (key order, quoting, comments ignored).
 * - `service.ts`: {@link checkServicePipeline}, what the service accepts as any pipeline YAML,
 *   worded by the caller (the emulator as the service, `check.ts` for a program's author).
 * - `check.ts`: {@link pipelineYamlProblems}, the client-side check of raw YAML.
 * - `walk.ts`: {@link pipelineViewOfModel} / {@link pipelineViewOfYaml}, a tolerant reader.
 *
 * Nothing here holds state, so the `Pipeline` resource can load it at call time.
 * @module
 */
export * from "./check";
export * from "./compare";
export * from "./errors";
export { Duration, durationMessage, nameMessage, PipelineName } from "./fields";
export * from "./grammar";
export * from "./model";
export * from "./parse";
export * from "./render";
export * from "./runtime-input";
export * from "./service";
export * from "./walk";
export * from "./wire";
