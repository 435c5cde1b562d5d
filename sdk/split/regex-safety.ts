/**
 * The check of a `MATCHES_STRING` pattern: it must compile as the feature-flag SDK compiles it
 * (`new RegExp(pattern)`, no flags), and it must not backtrack catastrophically. Every SDK that
 * evaluates the flag runs the pattern on user-supplied attribute values, in the application's
 * request path, so one exponential pattern stalls every service that evaluates it.
 *
 * The pattern is parsed with `@eslint-community/regexpp` (ESLint's ECMAScript regex parser, in the
 * same Annex B mode as a flagless `RegExp`), and two rules, conservative by design, find the
 * shapes behind exponential backtracking. Both look only inside a part that repeats (a quantifier
 * whose maximum is above 1, fixed counts such as `{30}` included):
 * 1. **Nested quantifiers**: two parts of variable length (quantifiers with a count range, `?`
 *    included), or one such part in two consecutive repetitions, can take the same characters,
 *    and nothing certainly consumed between them is a character neither can take, so a text can
 *    be shared out between them in many ways: `(a+)+`, `(a*)*`, `(.*)*`, `(\w+\s?)*`,
 *    `(x+x+)+`, `(\s*,\s*)+`. `(\d+,)*`, `([a-z0-9-]+\.)+` and `(a+b)+` pass: the `,`, `.` and
 *    `b` mark where each repetition ends.
 * 2. **Overlapping alternatives**: inside a repeated part, two alternatives made of single
 *    characters (or fixed counts of them) can match the same text: `(a|a)*`, `(\w|\d)+`,
 *    `((a|[a-c])b)*`; or the alternatives of the repeated part itself can split one text in two
 *    ways, found with the Sardinas-Patterson test of unique decodability: `(a|aa)*`. `(a|ab)*`
 *    passes: "ab" reads one way only.
 * Alternatives with quantifiers inside are left to rule 1; a backreference counts as a part that
 * may take anything; the content of lookarounds is checked like the rest. A pattern the regex engine accepts but the parser does not (syntax newer than the
 * parser) is refused as unanalysable, never passed unchecked.
 * @module
 */
import { type AST, RegExpParser } from "@eslint-community/regexpp";

/** Sorted, disjoint, inclusive code point ranges. */
type CharSet = readonly (readonly [number, number])[];

const MAX_CHAR = 0x10ffff;

function normalise(ranges: (readonly [number, number])[]): CharSet {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}
const union = (...sets: CharSet[]): CharSet => normalise(sets.flat());
function complement(set: CharSet): CharSet {
  const out: [number, number][] = [];
  let next = 0;
  for (const [lo, hi] of set) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CHAR) out.push([next, MAX_CHAR]);
  return out;
}
function overlaps(a: CharSet, b: CharSet): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const [alo, ahi] = a[i]!;
    const [blo, bhi] = b[j]!;
    if (alo <= bhi && blo <= ahi) return true;
    if (ahi < bhi) i++;
    else j++;
  }
  return false;
}

const ALL: CharSet = [[0, MAX_CHAR]];
const DIGIT: CharSet = [[0x30, 0x39]];
const WORD = normalise([
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
]);
// ECMAScript WhiteSpace and LineTerminator (what `\s` matches)
const SPACE = normalise([
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]);
const DOT = complement(
  normalise([
    [0x0a, 0x0a],
    [0x0d, 0x0d],
    [0x2028, 0x2029],
  ]),
);

type Atom = AST.Character | AST.CharacterSet | AST.CharacterClass;
const isAtom = (n: AST.Node): n is Atom =>
  n.type === "Character" || n.type === "CharacterSet" || n.type === "CharacterClass";

/** What one character position of an atom can match (property escapes: anything, conservatively). */
function atomSet(n: AST.Node): CharSet {
  switch (n.type) {
    case "Character":
      return [[n.value, n.value]];
    case "CharacterClassRange":
      return [[n.min.value, n.max.value]];
    case "CharacterSet": {
      if (n.kind === "any") return DOT;
      if (n.kind === "property") return ALL;
      const base = n.kind === "digit" ? DIGIT : n.kind === "word" ? WORD : SPACE;
      return n.negate ? complement(base) : base;
    }
    case "CharacterClass": {
      const inner = union(...n.elements.map(atomSet));
      return n.negate ? complement(inner) : inner;
    }
    default:
      return ALL;
  }
}

/** Every character anything inside `n` can match (lookarounds match none, backreferences any). */
function alphabet(n: AST.Node): CharSet {
  if (isAtom(n)) return atomSet(n);
  switch (n.type) {
    case "Alternative":
      return union(...n.elements.map(alphabet));
    case "Group":
    case "CapturingGroup":
      return union(...n.alternatives.map(alphabet));
    case "Quantifier":
      return alphabet(n.element);
    case "Backreference":
      return ALL;
    default:
      return [];
  }
}

/** The alternatives of what a quantifier repeats (an atom is one alternative of one element). */
function alternativesOf(n: AST.QuantifiableElement): readonly (readonly AST.Element[])[] {
  if (n.type === "Group" || n.type === "CapturingGroup") return n.alternatives.map((a) => a.elements);
  return [[n]];
}

/**
 * One step of a repeated part's alternative, for rule 1: a character (`fixed`), or a part whose
 * length varies (`variable`: a quantifier with a count range, `?` included, an alternation whose
 * alternatives are not single characters, a backreference). `mandatory` are the characters a
 * variable step consumes in any case (`c+` consumes at least one `c`).
 */
type Step =
  | { kind: "fixed"; set: CharSet }
  | { kind: "variable"; set: CharSet; raw: string; mandatory: CharSet[] };

/** The characters a part certainly consumes, each as the set it may be. */
function mandatoryAtoms(elements: readonly AST.Element[], out: CharSet[] = []): CharSet[] {
  for (const e of elements) {
    if (isAtom(e)) out.push(atomSet(e));
    else if ((e.type === "Group" || e.type === "CapturingGroup") && e.alternatives.length === 1) {
      mandatoryAtoms(e.alternatives[0]!.elements, out);
    } else if (e.type === "Quantifier" && e.min >= 1) mandatoryAtoms([e.element as AST.Element], out);
  }
  return out;
}

const MAX_STEPS = 256;

function steps(elements: readonly AST.Element[], out: Step[] = []): Step[] {
  for (const e of elements) {
    if (out.length > MAX_STEPS) break;
    if (isAtom(e)) out.push({ kind: "fixed", set: atomSet(e) });
    else if (e.type === "Quantifier") {
      if (e.min === e.max) {
        for (let i = 0; i < Math.min(e.min, MAX_STEPS); i++) steps([e.element as AST.Element], out);
      } else {
        const mandatory = e.min >= 1 ? mandatoryAtoms([e.element as AST.Element]) : [];
        out.push({ kind: "variable", set: alphabet(e), raw: e.raw, mandatory });
      }
    } else if (e.type === "Group" || e.type === "CapturingGroup") {
      if (e.alternatives.length === 1) steps(e.alternatives[0]!.elements, out);
      else {
        // alternatives of one and the same length are fixed characters, position by position
        const words = e.alternatives.map((a) => simpleWord(a.elements));
        const width = words[0]?.length;
        if (width !== undefined && width > 0 && words.every((w) => w !== undefined && w.length === width)) {
          for (let i = 0; i < width; i++)
            out.push({ kind: "fixed", set: union(...words.map((w) => w![i]!)) });
        } else out.push({ kind: "variable", set: alphabet(e), raw: e.raw, mandatory: [] });
      }
    } else if (e.type === "Backreference")
      out.push({ kind: "variable", set: ALL, raw: e.raw, mandatory: [] });
    // assertions match no character
  }
  return out;
}

function intersect(a: CharSet, b: CharSet): CharSet {
  const out: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const lo = Math.max(a[i]![0], b[j]![0]);
    const hi = Math.min(a[i]![1], b[j]![1]);
    if (lo <= hi) out.push([lo, hi]);
    if (a[i]![1] < b[j]![1]) i++;
    else j++;
  }
  return out;
}

/** A sequence of single-character positions, when an alternative is only that (fixed counts expanded). */
function simpleWord(elements: readonly AST.Element[]): CharSet[] | undefined {
  const out: CharSet[] = [];
  for (const e of elements) {
    if (isAtom(e)) out.push(atomSet(e));
    else if (e.type === "Quantifier" && e.min === e.max && isAtom(e.element) && out.length + e.min <= 64) {
      for (let i = 0; i < e.min; i++) out.push(atomSet(e.element));
    } else if ((e.type === "Group" || e.type === "CapturingGroup") && e.alternatives.length === 1) {
      const inner = simpleWord(e.alternatives[0]!.elements);
      if (!inner) return undefined;
      out.push(...inner);
    } else return undefined;
  }
  return out;
}

/** `u` can match the start of what `v` matches (position by position, |u| <= |v|). */
const prefixOf = (u: readonly CharSet[], v: readonly CharSet[], from = 0): boolean =>
  u.length <= v.length - from && u.every((s, i) => overlaps(s, v[from + i]!));

/**
 * Sardinas-Patterson on words of character sets: a pair of words (indexes) whose concatenations
 * can spell one text in two ways, or `undefined` when every text splits one way only. Dangling
 * suffixes are suffixes of the words, so the search is finite.
 */
function ambiguousWords(words: readonly (readonly CharSet[])[]): [number, number] | undefined {
  const queue: { w: number; k: number; pair: [number, number] }[] = [];
  const seen = new Set<string>();
  const push = (w: number, k: number, pair: [number, number]) => {
    const key = `${w}:${k}`;
    if (!seen.has(key)) {
      seen.add(key);
      queue.push({ w, k, pair });
    }
  };
  for (let i = 0; i < words.length; i++) {
    for (let j = 0; j < words.length; j++) {
      if (i === j || !prefixOf(words[i]!, words[j]!)) continue;
      if (words[i]!.length === words[j]!.length) return [Math.min(i, j), Math.max(i, j)];
      push(j, words[i]!.length, [i, j]);
    }
  }
  while (queue.length > 0) {
    const { w, k, pair } = queue.shift()!;
    const rest = words[w]!.slice(k);
    for (let c = 0; c < words.length; c++) {
      const word = words[c]!;
      if (prefixOf(word, rest)) {
        if (word.length === rest.length) return pair;
        push(w, k + word.length, pair);
      }
      if (prefixOf(rest, word)) {
        if (word.length === rest.length) return pair;
        push(c, rest.length, pair);
      }
    }
  }
  return undefined;
}

const quote = (s: string) => JSON.stringify(s);
const BACKTRACKS = "which can backtrack catastrophically (exponential time on a non-matching value)";

/**
 * Rule 1 on one repeated part: two variable steps (the same one in two consecutive repetitions, or
 * two within one or across the boundary of two) that can take the same characters, with no
 * character between them that neither can take, can share out one text in many ways; over many
 * repetitions the ways multiply.
 */
function nestedQuantifier(q: AST.Quantifier): string | undefined {
  const alts = alternativesOf(q.element).map((a) => steps(a));
  const separated = (between: readonly Step[], shared: CharSet) =>
    between.some((st) =>
      st.kind === "fixed" ? !overlaps(st.set, shared) : st.mandatory.some((m) => !overlaps(m, shared)),
    );
  const problem = (v1: Step & { kind: "variable" }, v2: Step & { kind: "variable" }) =>
    v1 === v2
      ? `nested quantifiers: ${quote(q.raw)} repeats ${quote(v1.raw)} with nothing to mark where one repetition ends, ${BACKTRACKS}`
      : `nested quantifiers: ${quote(q.raw)} repeats ${quote(v1.raw)} and ${quote(v2.raw)} with nothing between them that marks where one ends, ${BACKTRACKS}`;
  for (const a of alts) {
    for (let p = 0; p < a.length; p++) {
      const v1 = a[p]!;
      if (v1.kind !== "variable") continue;
      // within one repetition
      for (let r = p + 1; r < a.length; r++) {
        const v2 = a[r]!;
        if (v2.kind !== "variable") continue;
        const shared = intersect(v1.set, v2.set);
        if (shared.length > 0 && !separated(a.slice(p + 1, r), shared)) return problem(v1, v2);
      }
      // from this repetition into the next one, whichever alternative it takes
      for (const b of alts) {
        for (let r = 0; r < b.length; r++) {
          const v2 = b[r]!;
          if (v2.kind !== "variable") continue;
          const shared = intersect(v1.set, v2.set);
          if (shared.length > 0 && !separated([...a.slice(p + 1), ...b.slice(0, r)], shared)) {
            return problem(v1, v2);
          }
          if (b === a && r >= p) break;
        }
      }
    }
  }
  return undefined;
}

/**
 * The nodes inside `n` (itself included) that `pick` keeps, outer before inner, through groups,
 * alternatives and quantified elements, and into lookarounds when `lookarounds` is set.
 */
function nodesInside<T extends AST.Node>(
  n: AST.Node,
  pick: (n: AST.Node) => n is T,
  lookarounds: boolean,
  out: T[] = [],
): T[] {
  if (pick(n)) out.push(n);
  const walk = (inner: AST.Node) => nodesInside(inner, pick, lookarounds, out);
  switch (n.type) {
    case "Pattern":
    case "Group":
    case "CapturingGroup":
      n.alternatives.forEach(walk);
      break;
    case "Alternative":
      n.elements.forEach(walk);
      break;
    case "Quantifier":
      walk(n.element);
      break;
    case "Assertion":
      // lookarounds run at each position too: their content is checked like the rest
      if (lookarounds && (n.kind === "lookahead" || n.kind === "lookbehind")) n.alternatives.forEach(walk);
      break;
    default:
      break;
  }
  return out;
}

/** Groups with two or more alternatives inside `n` (itself included), lookarounds aside. */
const alternations = (n: AST.Node): (AST.Group | AST.CapturingGroup)[] =>
  nodesInside(
    n,
    (m): m is AST.Group | AST.CapturingGroup =>
      (m.type === "Group" || m.type === "CapturingGroup") && m.alternatives.length > 1,
    false,
  );

/** The group a quantifier repeats, through groups that only wrap it: `(?:(a|b))*` repeats `(a|b)`. */
function repeatedGroup(n: AST.QuantifiableElement): AST.Node {
  let node: AST.Node = n;
  while (
    (node.type === "Group" || node.type === "CapturingGroup") &&
    node.alternatives.length === 1 &&
    node.alternatives[0]!.elements.length === 1 &&
    (node.alternatives[0]!.elements[0]!.type === "Group" ||
      node.alternatives[0]!.elements[0]!.type === "CapturingGroup")
  ) {
    node = node.alternatives[0]!.elements[0]!;
  }
  return node;
}

/** Rule 2 on one repeated part. */
function overlappingAlternatives(q: AST.Quantifier): string | undefined {
  const direct = repeatedGroup(q.element);
  for (const group of alternations(q.element)) {
    const words = group.alternatives.map((a) => ({ raw: a.raw, word: simpleWord(a.elements) }));
    const simple = words.filter(
      (w): w is { raw: string; word: CharSet[] } => w.word !== undefined && w.word.length > 0,
    );
    // the repeated part itself: its alternatives follow one another, so any two-way split counts;
    // a group further in is followed by the rest of the part, so only two ways to spell one
    // alternative's text count
    const pair =
      group === direct
        ? ambiguousWords(simple.map((w) => w.word))
        : (() => {
            for (let i = 0; i < simple.length; i++)
              for (let j = i + 1; j < simple.length; j++) {
                const [a, b] = [simple[i]!.word, simple[j]!.word];
                if (a.length === b.length && prefixOf(a, b)) return [i, j] as [number, number];
              }
            return undefined;
          })();
    if (pair) {
      const [a, b] = [simple[pair[0]]!.raw, simple[pair[1]]!.raw];
      return `alternatives ${quote(a)} and ${quote(b)} of the repeated ${quote(q.raw)} can match the same text, ${BACKTRACKS}`;
    }
  }
  return undefined;
}

/** The parts of `n` repeated more than once (quantifiers with a maximum above 1), lookarounds included. */
const repeatedParts = (n: AST.Node): AST.Quantifier[] =>
  nodesInside(n, (m): m is AST.Quantifier => m.type === "Quantifier" && m.max > 1, true);

const parser = new RegExpParser({ ecmaVersion: 2025 });

/**
 * Why `pattern` cannot be the `string` of a `MATCHES_STRING` matcher, or `undefined` when it can.
 * Messages start with `string is not a valid regular expression: <pattern>` (it does not compile)
 * or `string is not a safe regular expression: <pattern>: <why>`.
 * @example
 * regexProblem("^[a-z]+@example\\.com$"); // undefined
 * regexProblem("(a+)+"); // 'string is not a safe regular expression: (a+)+: nested quantifiers: ...'
 */
export function regexProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern);
  } catch {
    return `string is not a valid regular expression: ${pattern}`;
  }
  let ast: AST.Pattern;
  try {
    ast = parser.parsePattern(pattern, 0, pattern.length, { unicode: false, unicodeSets: false });
  } catch {
    return `string is not a safe regular expression: ${pattern}: its syntax cannot be checked for catastrophic backtracking`;
  }
  for (const q of repeatedParts(ast)) {
    const why = nestedQuantifier(q) ?? overlappingAlternatives(q);
    if (why) return `string is not a safe regular expression: ${pattern}: ${why}`;
  }
  return undefined;
}
