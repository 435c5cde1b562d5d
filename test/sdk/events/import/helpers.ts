/** Shared helpers of the event import tests. */
import type { SourceChunk, SourceItem } from "../../../../sdk/events/import/source";

/** Yields `text` as Buffers of `size` bytes, to exercise every chunk boundary. */
export async function* chunksOf(text: string | Buffer, size: number): AsyncGenerator<Buffer> {
  const buf = typeof text === "string" ? Buffer.from(text) : text;
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

/** Runs a reader to the end and returns every item. */
export async function collect(gen: AsyncGenerator<SourceChunk>): Promise<SourceItem[]> {
  const out: SourceItem[] = [];
  for await (const c of gen) out.push(...c.items);
  return out;
}

/** A valid event with a distinct key. */
export function event(i: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    eventTypeId: "page_view",
    trafficTypeName: "user",
    key: `user-${i}`,
    timestamp: 1_700_000_000_000 + i,
    ...extra,
  };
}
