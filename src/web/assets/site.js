// Progressive enhancement of Colony's pages: nothing here is needed to read them.
// 1. Times: <time datetime> shows "3 hours ago" (the full date stays in its title).
// 2. Comments: a button beside each comment's header collapses or expands it and its replies.
const rtf = new Intl.RelativeTimeFormat(document.documentElement.lang || undefined, { numeric: "auto" });
const STEPS = [["year", 31536e6], ["month", 2592e6], ["week", 6048e5], ["day", 864e5], ["hour", 36e5], ["minute", 6e4]];

function relative(ms) {
  const diff = ms - Date.now();
  for (const [unit, size] of STEPS) if (Math.abs(diff) >= size) return rtf.format(Math.round(diff / size), unit);
  return rtf.format(0, "minute");
}

function times(root) {
  for (const t of root.querySelectorAll("time[datetime]")) {
    const ms = Date.parse(t.getAttribute("datetime"));
    if (Number.isNaN(ms)) continue;
    if (!t.title) t.title = new Date(ms).toLocaleString();
    t.textContent = relative(ms);
  }
}

function toggles(root) {
  for (const c of root.querySelectorAll("article.c")) {
    const head = c.querySelector(":scope > .h");
    if (!head) continue;
    const b = document.createElement("button");
    b.type = "button";
    b.className = "toggle";
    const name = head.querySelector(".n")?.textContent ?? "comment";
    const set = (open) => {
      c.classList.toggle("shut", !open);
      b.setAttribute("aria-expanded", String(open));
      b.textContent = open ? "[–]" : "[+]";
      b.setAttribute("aria-label", `${open ? "Collapse" : "Expand"} comment by ${name}`);
    };
    b.addEventListener("click", () => set(c.classList.contains("shut")));
    set(true);
    head.prepend(b);
  }
}

times(document);
toggles(document);
setInterval(() => times(document), 60_000);
