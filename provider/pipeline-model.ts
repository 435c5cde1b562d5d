/**
 * The typed pipeline model, for programs: the pipeline package of the SDK
 * (`sdk/platform/pipeline/`), where the grammar, the model, the wire form, rendering, parsing and
 * comparison live once for the provider, the emulator and the policy pack. This module keeps the
 * import path `flagstack/provider/pipeline-model` working.
 * @module
 */
export * from "../sdk/platform/pipeline";
