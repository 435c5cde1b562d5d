/** YAML texts that attack a reader: a billion-laughs document of nested aliases, indented to nest. */

/**
 * A billion-laughs document: nine levels of nine aliases each (9^9 leaves when expanded), each
 * line indented by `indent` spaces so that it can sit under a key of another document.
 */
export function aliasBomb(indent = 0): string {
  const pad = " ".repeat(indent);
  const levels = "abcdefghi".split("");
  let text = `${pad}a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n`;
  for (let i = 1; i < levels.length; i++) {
    text += `${pad}${levels[i]}: &${levels[i]} [${Array(9)
      .fill(`*${levels[i - 1]}`)
      .join(",")}]\n`;
  }
  return text;
}
