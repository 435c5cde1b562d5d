/**
 * The state file's lock and writes follow the real file (issue 14, group 5): a state path that is
 * a symlink is resolved first, so the lock is the real file's lock (a second emulator reaching the
 * same file through another path is refused) and every write goes to the real file's directory
 * and renames over the real file, leaving the symlink a symlink.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { StateFileError, startEmulator } from "../../emulator";
import { caller } from "../emulator/helpers";

const root = mkdtempSync(join(tmpdir(), "flagstack-state-link-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** A data directory and a links directory holding `state.json` → `../data-N/state.json`. */
function layout(): { data: string; links: string; real: string; link: string } {
  const i = ++n;
  const data = join(root, `data-${i}`);
  const links = join(root, `links-${i}`);
  mkdirSync(data);
  mkdirSync(links);
  const link = join(links, "state.json");
  symlinkSync(join("..", `data-${i}`, "state.json"), link);
  return { data, links, real: join(data, "state.json"), link };
}

describe("a symlinked state file", () => {
  it("stays a symlink: the emulator creates, writes and reloads the real file through it, in the real file's directory, with no temporary file left", async () => {
    const { data, links, real, link } = layout();
    const target = readlinkSync(link);
    // The link dangles: the first start creates the file it points to.
    const emu = await startEmulator({ port: 0, statePath: link });
    const call = caller(emu);
    const g = await call("POST", "/internal/api/v2/groups", {
      body: { name: "through-link", description: "" },
    });
    expect(g.status).toBe(200);
    expect(
      (
        await call("POST", "/api/events/bulk", {
          key: emu.sdkKey,
          body: [{ eventTypeId: "e", trafficTypeName: "user", key: "k", timestamp: 1 }],
        })
      ).status,
    ).toBe(202);
    await emu.stop();

    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(lstatSync(real).isFile()).toBe(true);
    expect(JSON.parse(readFileSync(real, "utf8")).groups).toEqual([
      { id: g.body.id, name: "through-link", description: "" },
    ]);
    // Lock, event log and temporary files belong beside the real file; the links directory
    // holds the link alone.
    expect(readdirSync(links)).toEqual(["state.json"]);
    expect(readdirSync(data).sort()).toEqual(["state.json", "state.json.events.ndjson"]);

    const again = await startEmulator({ port: 0, statePath: link });
    expect((await caller(again)("GET", "/internal/api/v2/groups")).body.objects).toEqual([
      { id: g.body.id, name: "through-link", description: "", type: "group" },
    ]);
    expect(again.events().map((e) => e.key)).toEqual(["k"]);
    await again.stop();
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it("a second emulator through a symlink to a locked state file is refused by the lock, and the file and the link are left as they were", async () => {
    const { real, link } = layout();
    const first = await startEmulator({ port: 0, statePath: real });
    const content = readFileSync(real, "utf8");

    const refusal = startEmulator({ port: 0, statePath: link });
    await expect(refusal).rejects.toBeInstanceOf(StateFileError);
    await expect(refusal).rejects.toThrow(
      `emulator state file ${link} (${real}) is already open in this process (lock file ${real}.lock); stop the other emulator first`,
    );
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, "utf8")).toBe(content);
    await first.stop();
    expect(existsSync(`${real}.lock`)).toBe(false);

    // The other way round: held through the link, the real path is refused.
    const viaLink = await startEmulator({ port: 0, statePath: link });
    await expect(startEmulator({ port: 0, statePath: real })).rejects.toThrow(
      `emulator state file ${real} is already open in this process (lock file ${real}.lock); stop the other emulator first`,
    );
    await viaLink.stop();
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });
});
