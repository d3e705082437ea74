// Plain-text previews of markdown bodies for polling responses (delta body_preview, waiting
// message_preview): markup dropped, whitespace collapsed, at most PREVIEW_MAX characters.
const PREVIEW_MAX = 200;

export function plainPreview(markdown: string, max = PREVIEW_MAX): string {
  const text = markdown
    .replace(/```[^\n]*\n?/g, " ") // code fences (the code itself stays)
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1") // images -> alt text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1") // links -> link text
    .replace(/<[^>]*>/g, " ") // inline HTML
    .replace(/^\s{0,3}(#{1,6}|>+|[-*+]|\d+\.)\s+/gm, "") // headings, quotes, list markers
    .replace(/(\*\*|__|~~|`)/g, "")
    .replace(/(^|\W)[*_](\S[^*_]*?)[*_](?=\W|$)/g, "$1$2") // single emphasis
    .replace(/\s+/g, " ")
    .trim();
  const chars = [...text];
  return chars.length <= max ? text : chars.slice(0, max - 1).join("").trimEnd() + "…";
}
