/**
 * Semantic comparison: two pipelines are equal when they mean the same to the service, whatever
 * their key order, formatting, quoting and comments (the peer providers compare YAML this way
 * too, ref §11.1 `YamlDiffSuppressFunction`: the service re-serializes what it stores).
 * @module
 */
import { setOwn } from "../../core/data-record";
import type { PipelineModel, PipelineModelInput, PipelineScope } from "./model";
import { readYaml } from "./parse";
import { renderPipelineDocument } from "./render";
import { canonicalRuntimeInput } from "./runtime-input";

/**
 * The comparable form of a pipeline document: mapping keys sorted, numbers and booleans as their
 * text (a YAML writer may quote `10` or not; the server reads both into the same typed field),
 * entries with a null value dropped (null and absent mean the same to the server), runtime inputs
 * in their canonical method order. Sequences keep their order: it is meaningful.
 */
export function normalizePipeline(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizePipeline);
  if (value instanceof Date) return value.toISOString();
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v === null || v === undefined) continue;
      setOwn(out, key, normalizePipeline(v));
    }
    return out;
  }
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return String(value);
  if (typeof value === "string") return canonicalRuntimeInput(value);
  return value;
}

/** A pipeline as YAML text, a parsed document (`{ pipeline: ... }`) or a model (rendered with `scope`). */
export type PipelineLike = string | { pipeline: unknown } | PipelineModelInput | PipelineModel;

function toDocument(p: PipelineLike, scope: PipelineScope | undefined): unknown {
  if (typeof p === "string") return readYaml(p);
  if (p !== null && typeof p === "object" && "pipeline" in p) return p;
  if (scope === undefined) {
    // Without a scope a model has no org/project: compare the rest of the document.
    const { pipeline } = renderPipelineDocument(p as PipelineModelInput, { org: "_", project: "_" });
    delete pipeline.orgIdentifier;
    delete pipeline.projectIdentifier;
    return { pipeline };
  }
  return renderPipelineDocument(p as PipelineModelInput, scope);
}

/**
 * True when two pipelines mean the same: both sides are parsed (YAML text) or rendered (models)
 * and compared after {@link normalizePipeline}, so key order, indentation, quoting, comments and
 * flow/block style never make a difference. A model is rendered into `scope` when given (otherwise
 * org and project are left out of the comparison on both sides).
 */
export function pipelinesEqual(a: PipelineLike, b: PipelineLike, scope?: PipelineScope): boolean {
  let da = toDocument(a, scope);
  let db = toDocument(b, scope);
  if (scope === undefined && (isModel(a) || isModel(b))) {
    da = withoutScope(da);
    db = withoutScope(db);
  }
  return JSON.stringify(normalizePipeline(da)) === JSON.stringify(normalizePipeline(db));
}

const isModel = (p: PipelineLike): boolean => typeof p === "object" && p !== null && !("pipeline" in p);

function withoutScope(doc: unknown): unknown {
  if (doc === null || typeof doc !== "object" || !("pipeline" in doc)) return doc;
  const pipeline = (doc as { pipeline: unknown }).pipeline;
  if (pipeline === null || typeof pipeline !== "object") return doc;
  const { orgIdentifier: _o, projectIdentifier: _p, ...rest } = pipeline as Record<string, unknown>;
  return { ...(doc as object), pipeline: rest };
}
