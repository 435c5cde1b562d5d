/**
 * Reads the TSDoc that the package schema's descriptions come from, with the TypeScript compiler
 * (a build-time step: `npm run schema`, and the test that the committed schema is current).
 *
 * The zod schemas document their members with TSDoc (`/** The flag's name. *\/ name: ...`), which
 * is not there at run time. The compiler keeps it on the inferred types: a member of
 * `z.input<typeof FlagInputs>` carries the comment written on `name:` in the schema's object
 * literal, through `extend`, `strictObject`, arrays and unions. So each resource's inputs and
 * outputs are read as the types `z.input<typeof <Type>Inputs>` and `z.output<typeof
 * <Type>Outputs>`, and the resource's description is its class's TSDoc (without the TypeScript
 * `@example`, which is not how the other languages write it).
 * @module
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import ts from "typescript";
import type { NativeFunction } from "./functions";
import type { NativeKind } from "./kinds";
import type { DocTree, SchemaDocs } from "./schema";

/**
 * The package's root: the nearest directory above this file whose `package.json` is flagstack's
 * (this file runs from `provider/native/` through tsx, or from its build in `dist/`).
 */
export function packageRoot(from: string = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string };
      if (manifest.name === "flagstack") return dir;
    } catch {
      // no package.json here: look further up
    }
    if (dirname(dir) === dir) throw new Error(`no flagstack package.json above ${from}`);
  }
}

/** The `provider/` sources, which hold the TSDoc (also when this runs from `dist/`). */
const providerDir = (): string => join(packageRoot(), "provider");

/** TSDoc text as a description: `{@link X}` becomes `X` in code quotes, a paragraph's lines one line. */
export function docText(text: string): string {
  return (
    text
      .replace(/\{@link\s+([^}\s|]+)(?:\s*\|\s*([^}]+))?\s*\}/g, (_m, target: string, label?: string) =>
        label ? label.trim() : `\`${target}\``,
      )
      .replace(/[ \t]*\n[ \t]*/g, "\n")
      // Lines of one paragraph are one line (lists and tables keep theirs).
      .replace(/([^\n])\n(?![\n|*-])/g, "$1 ")
      .trim()
  );
}

/**
 * The TSDoc of every kind's schemas and class, and of every function's lookup, read by the
 * compiler from the sources under `provider/`. Takes about ten seconds (the compiler resolves zod's inferred types).
 */
export function readDocs(
  kinds: readonly NativeKind[],
  functions: readonly NativeFunction[] = [],
): SchemaDocs {
  const dir = providerDir();
  const entry = join(dir, "native", "__schema-docs__.ts");
  const lines = ['import type { z } from "zod";'];
  kinds.forEach((kind, i) => {
    // Every resource module names its schemas `<Type>Inputs` and `<Type>Outputs`; a module that
    // did not would leave the type without members, which fails below.
    const inputs = `${kind.name}Inputs`;
    const outputs = `${kind.name}Outputs`;
    lines.push(`import type { ${inputs} as I${i}, ${outputs} as O${i} } from "../${kind.module}";`);
    lines.push(
      `export type Inputs${i} = z.input<typeof I${i}>;`,
      `export type Outputs${i} = z.output<typeof O${i}>;`,
    );
  });
  functions.forEach((f, i) => {
    lines.push(`import type { ${f.name} as F${i} } from "../${f.module}";`);
    lines.push(`export type Args${i} = NonNullable<Parameters<typeof F${i}>[0]>;`);
    lines.push(`export type Result${i} = Awaited<ReturnType<typeof F${i}>>;`);
  });
  const text = lines.join("\n");
  const options: ts.CompilerOptions = {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, ...rest) =>
    resolve(file) === entry
      ? ts.createSourceFile(file, text, language)
      : getSourceFile(file, language, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (file) => resolve(file) === entry || fileExists(file);
  const program = ts.createProgram([entry], options, host);
  const checker = program.getTypeChecker();
  const entryFile = program.getSourceFile(entry);
  const entrySymbol = entryFile && checker.getSymbolAtLocation(entryFile);
  if (!entrySymbol) throw new Error("docs: the compiler did not load the generated entry");
  const exported = new Map(checker.getExportsOfModule(entrySymbol).map((s) => [s.name, s]));
  const typeOf = (name: string): ts.Type => {
    const symbol = exported.get(name);
    if (!symbol) throw new Error(`docs: no ${name}`);
    return checker.getDeclaredTypeOfSymbol(symbol);
  };

  const resources: SchemaDocs["resources"] = {};
  kinds.forEach((kind, i) => {
    const inputs = members(checker, typeOf(`Inputs${i}`), 0, new Set());
    const outputs = members(checker, typeOf(`Outputs${i}`), 0, new Set());
    if (Object.keys(inputs).length === 0 || Object.keys(outputs).length === 0) {
      throw new Error(
        `docs: provider/${kind.module}.ts exports no ${kind.name}Inputs or ${kind.name}Outputs schema`,
      );
    }
    const description = declarationDoc(program, join(dir, `${kind.module}.ts`), kind.name);
    resources[kind.name] = { ...(description ? { description } : {}), inputs, outputs };
  });
  const fns: NonNullable<SchemaDocs["functions"]> = {};
  functions.forEach((f, i) => {
    const args = members(checker, typeOf(`Args${i}`), 0, new Set());
    const found = members(checker, typeOf(`Result${i}`), 0, new Set());
    // A list result is the member `listMember` of the invoke's outputs; its elements' TSDoc.
    const result = f.listMember
      ? { [f.listMember]: { doc: `The ${f.listMember} found.`, members: found } }
      : found;
    const description = declarationDoc(program, join(dir, `${f.module}.ts`), f.name);
    fns[f.name] = { ...(description ? { description } : {}), args, result };
  });
  return { resources, functions: fns };
}

const MAX_DEPTH = 12;

/** The documented members of an object type, nested through arrays, unions and objects. */
function members(checker: ts.TypeChecker, type: ts.Type, depth: number, seen: Set<ts.Type>): DocTree {
  const tree: DocTree = {};
  if (depth > MAX_DEPTH || seen.has(type)) return tree;
  const next = new Set(seen).add(type);
  for (const objectType of objectParts(checker, type)) {
    for (const prop of checker.getPropertiesOfType(objectType)) {
      const doc = docText(ts.displayPartsToString(prop.getDocumentationComment(checker)));
      const nested = members(checker, checker.getTypeOfSymbol(prop), depth + 1, next);
      const entry = tree[prop.name] ?? {};
      if (doc && entry.doc === undefined) entry.doc = doc;
      if (Object.keys(nested).length > 0) entry.members = { ...nested, ...entry.members };
      tree[prop.name] = entry;
    }
  }
  return tree;
}

/** The object types a member's type stands for: itself (an object or an intersection of objects), an array's elements, a record's values, a union's objects. */
function objectParts(checker: ts.TypeChecker, type: ts.Type): ts.Type[] {
  if (type.isUnion()) return type.types.flatMap((t) => objectParts(checker, t));
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    return checker.getTypeArguments(type as ts.TypeReference).flatMap((t) => objectParts(checker, t));
  }
  if (!(type.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection))) return [];
  if (type.getCallSignatures().length > 0) return [];
  // A record (`z.record`, a map in the schema): its values' members are its members.
  const values = checker.getIndexInfoOfType(type, ts.IndexKind.String)?.type;
  if (values !== undefined && checker.getPropertiesOfType(type).length === 0)
    return objectParts(checker, values);
  return [type];
}

/**
 * The TSDoc of the export `name` declared in `file`, without its tags (`@example`, ...): a class
 * (`export class Flag`), a constant holding one (`export const Flag = resourceClass(...)`), or a
 * function (`export async function getWorkspace`).
 */
function declarationDoc(program: ts.Program, file: string, name: string): string | undefined {
  const source = program.getSourceFile(file);
  if (!source) return undefined;
  for (const statement of source.statements) {
    const declares =
      ((ts.isClassDeclaration(statement) || ts.isFunctionDeclaration(statement)) &&
        statement.name?.text === name) ||
      (ts.isVariableStatement(statement) &&
        statement.declarationList.declarations.some((d) => ts.isIdentifier(d.name) && d.name.text === name));
    if (!declares) continue;
    const jsDoc = ts.getJSDocCommentsAndTags(statement).filter(ts.isJSDoc).at(-1);
    const text = jsDoc && ts.getTextOfJSDocComment(jsDoc.comment);
    if (text) return docText(text);
  }
  return undefined;
}
