/**
 * The bounded YAML reading (`sdk/core/yaml.ts`): a billion-laughs document is refused before it is
 * expanded, a text over 1 MiB before it is parsed, invalid YAML with the parser's code and
 * position; YAML with a few aliases still reads.
 */
import { describe, expect, it } from "vitest";
import { loadYaml, readYaml, YAML_MAX_BYTES, YamlReadError, yamlDocument } from "../../../sdk/core/yaml";
import { aliasBomb } from "../helpers/yaml-bomb";

describe("loadYaml", () => {
  it("refuses an alias bomb quickly, without expanding it", () => {
    const started = performance.now();
    const read = loadYaml(aliasBomb());
    expect(performance.now() - started).toBeLessThan(500);
    expect(read.ok).toBe(false);
    const error = (read as { error: YamlReadError }).error;
    expect([error.reason, error.message, error.about("yaml")]).toEqual([
      "aliases",
      "the YAML expands more than 100 aliases; YAML is limited to 100 alias expansions (a guard against alias bombs)",
      "yaml expands more than 100 aliases; YAML is limited to 100 alias expansions (a guard against alias bombs)",
    ]);
    expect(YamlReadError.isInstance(error)).toBe(true);
  });

  it("reads YAML with a few aliases", () => {
    expect(readYaml("base: &b {x: 1}\none: *b\ntwo: *b\n")).toEqual({
      base: { x: 1 },
      one: { x: 1 },
      two: { x: 1 },
    });
  });

  it("refuses a text over 1 MiB before parsing it, counting UTF-8 bytes", () => {
    const over = `a: ${"x".repeat(YAML_MAX_BYTES)}`;
    const thrown = (() => {
      try {
        readYaml(over);
      } catch (e) {
        return e;
      }
    })() as YamlReadError;
    expect([YamlReadError.isInstance(thrown), thrown.reason, thrown.message]).toEqual([
      true,
      "size",
      `the YAML is at least ${over.length} bytes; YAML is limited to 1048576 bytes (1 MiB) of UTF-8`,
    ]);
    const wide = `a: ${"é".repeat(YAML_MAX_BYTES / 2)}`;
    const read = loadYaml(wide);
    expect(read.ok ? undefined : read.error.about("yaml")).toBe(
      "yaml is 1048579 bytes; YAML is limited to 1048576 bytes (1 MiB) of UTF-8",
    );
    expect(() => yamlDocument(over)).toThrow(/YAML is limited to 1048576 bytes/);
  });

  it("refuses invalid YAML with the parser's code and position, duplicate keys included", () => {
    const read = loadYaml("a: 1\nb: 2\na: 3\n");
    expect(read.ok).toBe(false);
    const error = (read as { error: YamlReadError }).error;
    expect([error.reason, error.code, error.line, error.col, error.message]).toEqual([
      "syntax",
      "DUPLICATE_KEY",
      3,
      1,
      "Map keys must be unique at line 3, column 1:",
    ]);
  });
});
