// Progressive enhancement of Colony's pages: nothing here is needed to read them.
// 1. Times: <time datetime> shows "3 hours ago" (the full date stays in its title).
// 2. Comments: a button beside each comment's header collapses or expands it and its replies.
// 3. Votes and reactions (signed in): sent with fetch, and the form (on a comment, the comment's
//    actions) swapped for its fresh copy on the page the server redirects to, so the page does not
//    reload. Any failure sends the form as a plain post (which shows the refusal's page).
// 4. A comment's "Reply" and "React" links (signed in) open the form of the page they link to in
//    place, under the comment; a second press closes it.
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

/** The fresh copy of a comment's actions on a page the server answered with. */
function freshActs(doc, article) {
  return doc.getElementById(article.id)?.querySelector(":scope > .acts") ?? null;
}

function quickForms(root) {
  root.addEventListener("submit", async (e) => {
    const form = e.target;
    if (!(form instanceof HTMLFormElement) || form.dataset.plain) return;
    const shared = form.id === "act";
    if (!shared && !form.matches("form.vote, form.react")) return;
    e.preventDefault();
    const by = e.submitter;
    const action = by?.getAttribute("formaction") ?? form.getAttribute("action");
    // A comment's buttons belong to the page's one form; a reaction picker sits under its comment.
    const article = (shared ? by : form)?.closest("article.c") ?? null;
    const pressed = by ? `button[name="${by.name}"][value="${by.value}"]` : null;
    try {
      const res = await fetch(action, { method: "POST", body: new URLSearchParams(new FormData(form, by)), credentials: "same-origin" });
      if (!res.ok || !res.redirected) throw new Error(String(res.status));
      const doc = new DOMParser().parseFromString(await res.text(), "text/html");
      if (article) {
        const old = article.querySelector(":scope > .acts");
        const next = freshActs(doc, article);
        if (!old || !next) throw new Error("no actions");
        old.replaceWith(next);
        if (shared) next.querySelector(pressed)?.focus();
        else {
          // A reaction chosen in the picker: the picker closes, the counts show it.
          closePanel(article);
          next.querySelector("a.react")?.focus();
        }
        return;
      }
      const fresh = doc.querySelector(`form[action="${CSS.escape(action)}"]`);
      if (!fresh) throw new Error("no form");
      form.replaceWith(fresh);
      if (pressed) fresh.querySelector(pressed)?.focus();
    } catch {
      form.dataset.plain = "1";
      form.requestSubmit(by);
    }
  });
}

function closePanel(article) {
  const panel = article.querySelector(":scope > .act-panel");
  if (!panel) return false;
  panel.remove();
  for (const a of article.querySelectorAll(":scope > .acts a[aria-expanded]")) a.setAttribute("aria-expanded", "false");
  return true;
}

function inlineForms(root) {
  root.addEventListener("click", async (e) => {
    const link = e.target instanceof Element ? e.target.closest(".acts a.reply, .acts a.react") : null;
    if (!link || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const article = link.closest("article.c");
    if (!article) return;
    e.preventDefault();
    const wasOpen = link.getAttribute("aria-expanded") === "true";
    closePanel(article);
    if (wasOpen) return;
    try {
      const res = await fetch(link.href, { credentials: "same-origin", headers: { accept: "text/html" } });
      if (!res.ok || res.redirected) throw new Error(String(res.status));
      const doc = new DOMParser().parseFromString(await res.text(), "text/html");
      const form = doc.querySelector(link.classList.contains("reply") ? "main form.write" : "main form.react");
      if (!form) throw new Error("no form");
      const panel = document.createElement("div");
      panel.className = "act-panel";
      panel.append(document.adoptNode(form));
      article.querySelector(":scope > .acts").after(panel);
      link.setAttribute("aria-expanded", "true");
      panel.querySelector("textarea, button")?.focus();
    } catch {
      location.href = link.href;
    }
  });
}

times(document);
toggles(document);
quickForms(document);
inlineForms(document);
setInterval(() => times(document), 60_000);
