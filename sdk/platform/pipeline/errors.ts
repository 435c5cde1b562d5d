/**
 * Problems found in a pipeline model or a pipeline YAML, each naming its field.
 * @module
 */
import { z } from "zod";
import { dotPath } from "../../core/issues";

/** One problem found in a pipeline model or YAML, with the dotted path of the field. */
export const PipelineIssue = z.object({
  /** `stages[0].execution.steps[1].timeout` (model) or `pipeline.stages[0].stage.type` (YAML). */
  path: z.string(),
  message: z.string(),
});
/** See {@link PipelineIssue}. */
export type PipelineIssue = z.output<typeof PipelineIssue>;

/** Formats a zod path as `a.b[0].c`, under `prefix` (the project's one formatter). */
export function formatPath(path: readonly PropertyKey[], prefix = ""): string {
  return dotPath(path, prefix);
}

/** Turns zod issues into {@link PipelineIssue}s; unrecognized keys are named individually. */
export function pipelineIssues(error: z.ZodError, prefix = ""): PipelineIssue[] {
  return error.issues.flatMap((issue): PipelineIssue[] => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        path: formatPath([...issue.path, key], prefix),
        message: `unknown field ${JSON.stringify(key)}`,
      }));
    }
    return [{ path: formatPath(issue.path, prefix), message: issue.message }];
  });
}

/** A pipeline model or pipeline YAML that is invalid; `issues` names every bad field. */
export class PipelineModelError extends Error {
  readonly issues: PipelineIssue[];
  constructor(what: string, issues: PipelineIssue[]) {
    super(`${what}: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ")}`);
    this.name = "PipelineModelError";
    this.issues = issues;
  }
}
