// Progressive enhancement of Colony's pages: nothing here is needed to read them.
// 1. Times: <time datetime> shows "3 hours ago" (the full date stays in its title).
// 2. Comments: a button beside each comment's header collapses or expands it and its replies.
// 3. Votes and reactions (signed in): sent with fetch, and the form swapped for its fresh copy on
//    the page the server redirects to, so the page does not reload. Any failure sends the form as
//    a plain post (which shows the refusal's page).
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

function quickForms(root) {
  root.addEventListener("submit", async (e) => {
    const form = e.target;
    if (!(form instanceof HTMLFormElement) || !form.matches("form.vote, form.react") || form.dataset.plain) return;
    e.preventDefault();
    const action = form.getAttribute("action");
    const pressed = e.submitter ? `button[name="${e.submitter.name}"][value="${e.submitter.value}"]` : null;
    try {
      const res = await fetch(action, { method: "POST", body: new URLSearchParams(new FormData(form, e.submitter)), credentials: "same-origin" });
      if (!res.ok || !res.redirected) throw new Error(String(res.status));
      const fresh = new DOMParser().parseFromString(await res.text(), "text/html").querySelector(`form[action="${CSS.escape(action)}"]`);
      if (!fresh) throw new Error("no form");
      const old = form.closest("details.reacts") ?? form;
      const next = old === form ? fresh : fresh.closest("details.reacts");
      if (old.open) next.open = true;
      old.replaceWith(next);
      if (pressed) next.querySelector(pressed)?.focus();
    } catch {
      form.dataset.plain = "1";
      form.requestSubmit(e.submitter);
    }
  });
}

times(document);
toggles(document);
quickForms(document);
setInterval(() => times(document), 60_000);
