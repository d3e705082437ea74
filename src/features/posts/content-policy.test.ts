// The HTML policy runs on markdown-it's tokens (content.ts). This holds it to sanitize-html with the
// same policy, run over the HTML the way this module used to: over a corpus of hostile bodies and
// thousands of random ones, the two give the same HTML, and sanitize-html changes nothing in ours.
import { describe, expect, test } from "bun:test";
import MarkdownIt from "markdown-it";
import sanitizeHtml from "sanitize-html";
import { allowedUrl, EXTERNAL_REL, IMAGE_SCHEMES, LANGUAGE_CLASS, LINK_SCHEMES, renderMarkdown } from "./content";

/**
 * The same policy as sanitize-html options: what content.ts ran over the rendered HTML before the
 * policy moved to the tokens, the oracle the token policy must match.
 */
const SANITIZE_POLICY = {
  allowedTags: [
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "code", "em", "strong", "s", "del",
    "ul", "ol", "li", "a", "img", "table", "thead", "tbody", "tr", "th", "td", "sup", "sub",
  ],
  allowedAttributes: {
    a: ["href", "title", "class", "rel"],
    img: ["src", "alt", "title"],
    code: ["class"],
    ol: ["start"],
    th: ["style"],
    td: ["style"],
  },
  allowedClasses: { a: ["mention"], code: [LANGUAGE_CLASS] },
  allowedStyles: { th: { "text-align": [/^(left|right|center)$/] }, td: { "text-align": [/^(left|right|center)$/] } },
  allowedSchemes: [...LINK_SCHEMES],
  allowedSchemesByTag: { img: [...IMAGE_SCHEMES] },
  allowProtocolRelative: false,
  disallowedTagsMode: "discard" as const,
  linkRel: EXTERNAL_REL,
};

const plain = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false });
const { linkRel, ...options } = SANITIZE_POLICY;
const sanitize = (html: string) =>
  sanitizeHtml(html, {
    ...options,
    transformTags: {
      a: (tagName, attribs) => {
        const own = attribs.class === "mention" && attribs.href?.startsWith("/u/");
        const { class: _c, ...rest } = attribs;
        return { tagName, attribs: own ? attribs : { ...rest, rel: linkRel } };
      },
    },
  });
const oracle = (body: string) => sanitize(plain.render(body));

const HOSTILE = [
  "<script>alert(1)</script>",
  '<img src="x" onerror="alert(1)">',
  "[a](javascript:alert(1))",
  "[a](JaVaScRiPt:alert(1))",
  "[a](jav&#x61;script:alert(1))",
  "[a](java\tscript:alert(1))",
  "[a](java%0Ascript:alert(1))",
  "[a](<java script:alert(1)>)",
  "[a](vbscript:msgbox)",
  "[a](data:text/html;base64,PHNjcmlwdD4=)",
  "![a](data:image/png;base64,iVBORw0KGgo=)",
  "![a](javascript:alert(1))",
  "![a](ftp://a.example/i.png)",
  "![a](//evil.example/i.png)",
  "[a](//evil.example)",
  "[a](\\\\evil.example)",
  "[a](/\\evil.example)",
  "[a](ftp://a.example)",
  "[a](tel:+123)",
  "[a](mailto:x@a.example)",
  "[a](MAILTO:x@a.example)",
  "[a](https://a.example \"t\\\" onmouseover=\\\"alert(1)\")",
  "[a](https://a.example 'quote \" inside')",
  "[a](relative/path?x=1&y=<2>)",
  "[a](#frag)",
  "[a](?q=1)",
  "[a](<!--x-->javascript:alert(1))",
  "[a](java<!--x-->script:alert(1))",
  "<javascript:alert(1)>",
  "<https://a.example/x?a=1&b=2>",
  "<mailto:x@a.example>",
  "www.a.example/path",
  "x@a.example",
  "[ref]\n\n[ref]: javascript:alert(1)",
  "[ref]\n\n[ref]: https://a.example \"title <b>\"",
  '```js" onload="alert(1)\ncode\n```',
  "```<script>\ncode\n```",
  "```c++\nint a;\n```",
  "```lang extra words\nx\n```",
  "```\n\"quoted\" & <tag>\n```",
  "    indented \"code\" <b>",
  "`inline \"code\" <b> & c`",
  'He said "hi" & <b>bye</b>',
  "&lt;script&gt; &amp; &quot; &#39; &#x3C; &nbsp; &copy; &bogus; &#0;",
  "| a | b |\n|:-|-:|\n| <x> | \"y\" |",
  "| a |\n|:-:|\n| 1 |",
  "1. one\n2. two",
  "5. five\n6. six",
  "- a\n  - b\n    - c",
  "> quote\n> > nested",
  "# h1\n## h2\n###### h6",
  "a  \nhard break",
  "a\\\nbackslash break",
  "***\n---\n___",
  "~~struck~~",
  "**bold _em_**",
  "![alt with \"quotes\" & <b>](https://a.example/i.png \"title\")",
  "[![img](https://a.example/i.png)](https://a.example)",
  "[a]( https://a.example )",
  "\u0000 null \u0001 control \u202e rtl",
  "<div>block html</div>\n\n<!-- comment -->",
  "<a href=\"javascript:alert(1)\">x</a>",
  "[x](https://a.example/\"><script>alert(1)</script>)",
  "https://a.example/\"><img src=x onerror=alert(1)>",
  "[a](https://a.example/%22onmouseover=alert(1))",
];

describe("the token policy against sanitize-html", () => {
  test("hostile bodies: the same HTML, and sanitize-html changes nothing in ours", () => {
    for (const body of HOSTILE) {
      const ours = renderMarkdown(body);
      expect({ body, html: ours }).toEqual({ body, html: oracle(body) });
      expect({ body, html: sanitize(ours) }).toEqual({ body, html: ours });
    }
  });

  test("5,000 random bodies built from markdown's pieces give the same HTML", () => {
    const pieces = [
      "text ", "word", "\"q\"", "'s", "&", "&amp;", "<", ">", "<b>", "</b>", "*", "**", "_", "`", "```", "~~", "[", "]", "(", ")",
      "![", "\n", "\n\n", "  \n", "> ", "- ", "1. ", "# ", "| a | b |\n|-|-|\n| 1 | 2 |\n", "https://a.example/p?x=1&y=2", "www.b.example",
      "javascript:alert(1)", "data:x", "ftp://f.example", "mailto:m@a.example", "//p.example", "#f", "\t", "    ", "\\", "&#x6A;", "@alice",
      "```py\n", "```x y\n", "<!--", "-->", "\"", "=", "onerror", "x@y.example", "\u00a0", "é", "😀",
    ];
    let seed = 42;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
    for (let i = 0; i < 5000; i++) {
      let body = "";
      for (let k = 1 + rand(30); k > 0; k--) body += pieces[rand(pieces.length)];
      const ours = renderMarkdown(body);
      if (ours !== oracle(body)) expect({ body, html: ours }).toEqual({ body, html: oracle(body) });
    }
    // Seconds of rendering on an idle machine, several times that on a busy one: a timeout of its own.
  }, 20_000);

  test("allowedUrl reads a URL the way browsers do", () => {
    expect(allowedUrl("https://a.example", ["http", "https"])).toBe(true);
    expect(allowedUrl("HTTPS://a.example", ["http", "https"])).toBe(true);
    expect(allowedUrl("relative/x", ["https"])).toBe(true);
    expect(allowedUrl("//host", ["https"])).toBe(false);
    expect(allowedUrl("\\\\host", ["https"])).toBe(false);
    expect(allowedUrl("java\nscript:x", ["https"])).toBe(false);
    expect(allowedUrl("java<!-- -->script:x", ["https"])).toBe(false);
    expect(allowedUrl("ftp://x", ["http", "https"])).toBe(false);
  });
});
