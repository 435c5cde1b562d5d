/**
 * The I/O a command that reads a plan takes in a test (`flagstack policy check`, `flagstack
 * impact`): files by name, standard input, and what the command wrote.
 */

import type { CommandIo } from "../../cli/command-io";

/** Files by name and standard input to read; `written` collects what the command writes. */
export function fakeIo(
  files: Record<string, string>,
  stdin = "",
): { fake: CommandIo; written: { out: string; err: string } } {
  const written = { out: "", err: "" };
  const fake: CommandIo = {
    readFile: (path) => {
      const text = files[path];
      if (text === undefined) throw new Error(`ENOENT: no such file or directory, open '${path}'`);
      return text;
    },
    readStdin: () => stdin,
    out: (text) => {
      written.out += text;
    },
    err: (text) => {
      written.err += text;
    },
  };
  return { fake, written };
}
