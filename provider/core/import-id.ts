/**
 * A kind's import id filled from an object's inputs: the kind's `importId` form
 * (`<workspace>/<name>`, `[<org>/[<project>/]]<identifier>[/versions/<versionLabel>]`) with each
 * `<part>` the input it names, an optional `[...]` group kept when its inputs are given. The
 * generated docs name the example's own object by it (`Default/beta-testers`), and
 * `flagstack terraform recover` the `id` of each `import` block it writes
 * (`../terraform/recover.ts`); the Terraform door's create conflict names the block to write.
 * @module
 */

type Props = Record<string, unknown>;

/**
 * The input of `inputs` a part of an import id's form names: the input of its name in camelCase
 * (`<workspace>`, `<traffic type>` → `trafficType`), else the identifier of the object it names
 * (`<pipeline>` → `pipelineIdentifier`), else that member of the one object input holding it (a
 * `Pipeline`'s `<identifier>`, `pipeline.identifier`). `undefined` when none is a given string.
 */
export function importPartOf(inputs: Props, part: string): string | undefined {
  const key = partKey(part);
  const holders = Object.values(inputs).filter(
    (v): v is Props => v !== null && typeof v === "object" && !Array.isArray(v) && key in v,
  );
  const value =
    inputs[key] ?? inputs[`${key}Identifier`] ?? (holders.length === 1 ? holders[0]?.[key] : undefined);
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** The input name a part of a form names: `traffic type` → `trafficType`. */
export const partKey = (part: string): string => part.replace(/ (\w)/g, (_, c: string) => c.toUpperCase());

/** The parts a form names, in order: `[<org>/[<project>/]]<identifier>` → `org`, `project`, `identifier`. */
export function importIdParts(form: string): string[] {
  return [...form.matchAll(/<([^>]+)>/g)].map((m) => partKey(m[1] as string));
}

/**
 * The import id of the object `inputs` declare, by the kind's import id `form`; `undefined` when
 * an input a required part names is not given (or the form is malformed).
 */
export function importIdOf(form: string, inputs: Props): string | undefined {
  let at = 0;
  let malformed = false;
  /** The form from `at` up to the end of the group it is in: its text, or `undefined` when a part is not given. */
  const group = (): string | undefined => {
    let out: string | undefined = "";
    while (at < form.length) {
      const c = form[at] as string;
      if (c === "]") {
        at++;
        return out;
      }
      if (c === "[") {
        at++;
        const inner = group();
        if (out !== undefined && inner !== undefined) out += inner;
      } else if (c === "<") {
        const end = form.indexOf(">", at);
        if (end < 0) {
          malformed = true;
          return undefined;
        }
        const value = importPartOf(inputs, form.slice(at + 1, end));
        out = out === undefined || value === undefined ? undefined : out + value;
        at = end + 1;
      } else {
        if (out !== undefined) out += c;
        at++;
      }
    }
    return out;
  };
  const id = group();
  return malformed ? undefined : id;
}
