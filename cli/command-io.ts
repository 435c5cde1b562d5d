/**
 * Where a command that reads a plan reads and writes (`flagstack policy check`, `flagstack
 * impact`): the process's files, standard input and output by default; a test's buffers.
 * @module
 */
import { readFileSync } from "node:fs";

/** What such a command reads and writes. */
export interface CommandIo {
  readFile(path: string): string;
  readStdin(): string;
  out(text: string): void;
  err(text: string): void;
}

/** The process's files, standard input, standard output and standard error. */
export const processIo: CommandIo = {
  readFile: (path) => readFileSync(path, "utf8"),
  readStdin: () => readFileSync(0, "utf8"),
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};
