// The procedural avatar: a small, deterministic SVG drawn from a handful of integer choices.
// Every choice not made by the user is derived from a hash of the username, so an account that
// never touched its avatar still gets a stable, distinct picture. Agents are drawn as robots
// (antenna, square-ish head, bolt ears), humans as people (hair, round face, round ears).
// The output references nothing external and the only text in it (the title) is escaped.
import { createHash } from "node:crypto";
import type { AvatarSettings } from "../users/service";

export type AvatarUserType = "agent" | "human";

/** Every choice resolved: what the SVG is drawn from. */
interface ResolvedAvatar {
  bg: number;
  accent: number;
  eyes: number;
  mouth: number;
  head: number;
  ears: boolean;
}

const LIMITS = { bg: 15, accent: 15, eyes: 5, mouth: 5, head: 5 } as const;

const BACKGROUNDS = [
  "#f2e8cf", "#dbe9f4", "#e3f2e1", "#f9e0e3", "#ece4f7", "#fff1c9", "#d8f1ef", "#f6e2d3",
  "#e6e6e6", "#1f2937", "#23395d", "#2d4a3e", "#4a2c40", "#3b3355", "#5a4632", "#12343b",
] as const;

const ACCENTS = [
  "#e4572e", "#29335c", "#f3a712", "#669bbc", "#8ac926", "#6a4c93", "#ff595e", "#1982c4",
  "#00a896", "#c5283d", "#ffca3a", "#9b5de5", "#f15bb5", "#00bbf9", "#7d8597", "#bc6c25",
] as const;

const SKIN = ["#f8d5b8", "#eabf9f", "#d19a6e", "#a86b45", "#7a4a2a", "#5a3520"] as const;

/** Hash-derived defaults for a username (case-insensitive), plus the skin tone of humans. */
export function defaultsFor(username: string): ResolvedAvatar & { skin: number } {
  const b = createHash("sha256").update(username.trim().toLowerCase()).digest();
  const bg = b[0] % 16;
  let accent = b[1] % 16;
  // Keep the figure readable: never the background's own index.
  if (accent === bg) accent = (accent + 7) % 16;
  return { bg, accent, eyes: b[2] % 6, mouth: b[3] % 6, head: b[4] % 6, ears: (b[5] & 1) === 1, skin: b[6] % SKIN.length };
}

/** Stored (or previewed) choices over the username's defaults. */
export function resolve(username: string, settings: AvatarSettings | null | undefined): ResolvedAvatar & { skin: number } {
  const d = defaultsFor(username);
  const s = settings ?? {};
  return {
    bg: s.bg ?? d.bg,
    accent: s.accent ?? d.accent,
    eyes: s.eyes ?? d.eyes,
    mouth: s.mouth ?? d.mouth,
    head: s.head ?? d.head,
    ears: s.ears ?? d.ears,
    skin: d.skin,
  };
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** Escapes text for SVG/XML content and attribute values; drops characters XML cannot carry. */
export function escapeXml(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "").replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

const clampIndex = (v: number, max: number) => (Number.isInteger(v) && v >= 0 && v <= max ? v : 0);

function agentHead(shape: number, fill: string): string {
  switch (shape) {
    case 0: return `<rect x="24" y="26" width="52" height="48" rx="4" fill="${fill}"/>`;
    case 1: return `<rect x="22" y="24" width="56" height="52" rx="16" fill="${fill}"/>`;
    case 2: return `<polygon points="50,20 78,34 78,66 50,80 22,66 22,34" fill="${fill}"/>`;
    case 3: return `<rect x="18" y="30" width="64" height="42" rx="8" fill="${fill}"/>`;
    case 4: return `<polygon points="30,24 70,24 80,74 20,74" fill="${fill}"/>`;
    default: return `<rect x="26" y="22" width="48" height="56" rx="24" fill="${fill}"/>`;
  }
}

function humanHead(shape: number, fill: string): string {
  switch (shape) {
    case 0: return `<circle cx="50" cy="50" r="26" fill="${fill}"/>`;
    case 1: return `<ellipse cx="50" cy="50" rx="23" ry="28" fill="${fill}"/>`;
    case 2: return `<ellipse cx="50" cy="52" rx="28" ry="24" fill="${fill}"/>`;
    case 3: return `<rect x="26" y="24" width="48" height="54" rx="20" fill="${fill}"/>`;
    case 4: return `<path d="M26 44 Q26 22 50 22 Q74 22 74 44 L70 64 Q50 84 30 64 Z" fill="${fill}"/>`;
    default: return `<path d="M28 40 Q50 16 72 40 L72 58 Q50 82 28 58 Z" fill="${fill}"/>`;
  }
}

function eyes(style: number, ink: string, human: boolean): string {
  const y = human ? 48 : 46;
  switch (style) {
    case 0: return `<circle cx="40" cy="${y}" r="5" fill="${ink}"/><circle cx="60" cy="${y}" r="5" fill="${ink}"/>`;
    case 1: return `<rect x="34" y="${y - 5}" width="10" height="10" fill="${ink}"/><rect x="56" y="${y - 5}" width="10" height="10" fill="${ink}"/>`;
    case 2: return `<rect x="33" y="${y - 2}" width="12" height="4" rx="2" fill="${ink}"/><rect x="55" y="${y - 2}" width="12" height="4" rx="2" fill="${ink}"/>`;
    case 3: return `<rect x="32" y="${y - 5}" width="36" height="10" rx="5" fill="${ink}"/><rect x="36" y="${y - 2}" width="8" height="4" fill="#ffffff"/>`;
    case 4: return `<path d="M34 ${y + 3} L40 ${y - 3} L46 ${y + 3} M54 ${y + 3} L60 ${y - 3} L66 ${y + 3}" stroke="${ink}" stroke-width="3" fill="none" stroke-linecap="round"/>`;
    default: return `<circle cx="40" cy="${y}" r="6" fill="#ffffff"/><circle cx="60" cy="${y}" r="6" fill="#ffffff"/><circle cx="41" cy="${y + 1}" r="3" fill="${ink}"/><circle cx="61" cy="${y + 1}" r="3" fill="${ink}"/>`;
  }
}

function mouth(style: number, ink: string, human: boolean): string {
  const y = human ? 64 : 62;
  switch (style) {
    case 0: return `<line x1="42" y1="${y}" x2="58" y2="${y}" stroke="${ink}" stroke-width="3" stroke-linecap="round"/>`;
    case 1: return `<path d="M40 ${y - 2} Q50 ${y + 8} 60 ${y - 2}" stroke="${ink}" stroke-width="3" fill="none" stroke-linecap="round"/>`;
    case 2: return `<rect x="38" y="${y - 4}" width="24" height="8" fill="${ink}"/><path d="M44 ${y - 4} V${y + 4} M50 ${y - 4} V${y + 4} M56 ${y - 4} V${y + 4}" stroke="#ffffff" stroke-width="1.5"/>`;
    case 3: return `<circle cx="50" cy="${y}" r="4" fill="${ink}"/>`;
    case 4: return `<polyline points="40,${y} 44,${y - 3} 48,${y} 52,${y - 3} 56,${y} 60,${y - 3}" stroke="${ink}" stroke-width="2.5" fill="none" stroke-linejoin="round"/>`;
    default: return `<path d="M40 ${y + 3} Q50 ${y - 6} 60 ${y + 3}" stroke="${ink}" stroke-width="3" fill="none" stroke-linecap="round"/>`;
  }
}

interface RenderOptions {
  username: string;
  userType: AvatarUserType;
  avatar: ResolvedAvatar & { skin: number };
  /** Rendered width and height in pixels. */
  size: number;
}

/** The avatar as a standalone SVG document. Same input, same bytes. */
export function renderSvg(o: RenderOptions): string {
  const a = o.avatar;
  const bg = BACKGROUNDS[clampIndex(a.bg, LIMITS.bg)];
  const accent = ACCENTS[clampIndex(a.accent, LIMITS.accent)];
  const head = clampIndex(a.head, LIMITS.head);
  const eyeStyle = clampIndex(a.eyes, LIMITS.eyes);
  const mouthStyle = clampIndex(a.mouth, LIMITS.mouth);
  const size = Math.round(o.size);
  const human = o.userType === "human";
  const ink = "#1b1b1b";
  const parts: string[] = [`<rect width="100" height="100" fill="${bg}"/>`];
  if (human) {
    const skin = SKIN[a.skin % SKIN.length];
    parts.push(`<ellipse cx="50" cy="98" rx="34" ry="18" fill="${accent}"/>`);
    if (a.ears) parts.push(`<circle cx="24" cy="52" r="6" fill="${skin}"/><circle cx="76" cy="52" r="6" fill="${skin}"/>`);
    parts.push(humanHead(head, skin));
    parts.push(`<path d="M24 44 Q26 16 50 16 Q74 16 76 44 Q66 30 50 30 Q34 30 24 44 Z" fill="${accent}"/>`);
  } else {
    parts.push(`<rect x="30" y="84" width="40" height="16" rx="3" fill="${accent}" opacity="0.7"/>`);
    parts.push(`<line x1="50" y1="24" x2="50" y2="12" stroke="${accent}" stroke-width="3"/><circle cx="50" cy="10" r="4" fill="${accent}"/>`);
    if (a.ears) parts.push(`<rect x="12" y="42" width="9" height="16" rx="2" fill="${accent}"/><rect x="79" y="42" width="9" height="16" rx="2" fill="${accent}"/>`);
    parts.push(agentHead(head, accent));
    parts.push(`<rect x="30" y="36" width="40" height="34" rx="6" fill="#f5f5f5" opacity="0.9"/>`);
  }
  parts.push(eyes(eyeStyle, ink, human), mouth(mouthStyle, ink, human));
  const title = escapeXml(`${o.username.slice(0, 64) || "avatar"} (${human ? "human" : "agent"})`);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 100 100" role="img">` +
    `<title>${title}</title>${parts.join("")}</svg>`
  );
}
