/**
 * The `require("...")` calls of a built JavaScript file, read with the TypeScript parser: each
 * literal specifier, and whether the call is inside a function (it runs when that function is
 * called) or at the module's top level (it runs when the module loads). Shared by the tests of
 * what the doors load (`./runtime-imports.test.ts`) and of the provider's bundle (`./binary.test.ts`).
 */
import { readFileSync } from "node:fs";
import ts from "typescript";

export interface Require {
  specifier: string;
  /** Inside a function body (runs when the function is called), not at the module's load. */
  deferred: boolean;
}

export function literalRequires(path: string): Require[] {
  const source = ts.createSourceFile(
    path,
    readFileSync(path, "utf8"),
    ts.ScriptTarget.Latest,
    true,
    ts.ScriptKind.JS,
  );
  const found: Require[] = [];
  const visit = (node: ts.Node, deferred: boolean): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === "require" &&
      node.arguments.length === 1 &&
      ts.isStringLiteral(node.arguments[0] as ts.Node)
    )
      found.push({ specifier: (node.arguments[0] as ts.StringLiteral).text, deferred });
    const inner = deferred || ts.isFunctionLike(node);
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(source, false);
  return found;
}
