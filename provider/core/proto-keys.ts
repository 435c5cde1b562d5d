/**
 * Inputs holding an own `__proto__` key (a tag named `__proto__`). The platform and the flagstack
 * SDK keep such a key (`sdk/core/data-record.ts`), but Pulumi's Node.js runtime cannot carry it: it
 * builds each object of a resource's inputs by assignment (`@pulumi/pulumi` `runtime/rpc.js`
 * `serializeProperty` in the program; google-protobuf's `Struct.toJavaScript` and its map type,
 * which keeps a struct's fields in a plain object, in the provider hosts), and assigning
 * `__proto__` into `{}` drops it without a word. So flagstack refuses it where it can still see
 * it: the resource class, when a TypeScript program declares the resource (`resource.ts`), naming
 * the field. A program in another language reaches the native provider through the same protobuf
 * library, which drops the key while reading the request, before any flagstack code runs; it
 * cannot be refused there. Identifiers such as `__proto__` are values, not keys, and pass.
 * @module
 */
import { dotPath } from "../../sdk/core/issues";

/** Why such an input is refused. */
export const PROTO_KEY_REASON =
  'a key named "__proto__" cannot pass through Pulumi: its Node.js runtime builds each input object by assignment, which drops that key without a word (the service and the flagstack SDK keep it); use another key';

/** The message of a resource declared with such an input at `path`. */
export const protoKeyMessage = (resource: string, path: readonly (string | number)[]): string =>
  `${resource}: ${dotPath(path)}: ${PROTO_KEY_REASON}`;
