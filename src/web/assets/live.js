// Live updates for a signed-in person's pages (docs/decisions.md §170-§172), over the server-sent
// event stream at /live (same origin, the session cookie). Only signed-in pages load this file,
// and every page works without it:
// 1. The header's notification count (and the tab's title) follows the unread count.
// 2. A conversation (/messages/<name>), and the newest page of a group (/groups/<id>), show a new
//    message as it arrives: the page fetches its own address again (which marks the messages read,
//    as opening it does) and appends the messages it does not show yet, as the server rendered them.
// 3. A post page says how many comments others have added since it was loaded, in a polite live
//    region, with a link that reloads the page at the first of them.
// EventSource reconnects by itself after a network failure or a server restart; a refusal (the
// session ended) closes it for good. A tab hidden for a minute closes its stream, so background
// tabs do not hold connections, and catches up when it is shown again.
const unreadLink = document.querySelector('.who a[href="/notifications"]');
const dmBox = document.querySelector("[data-live-dm]");
const groupBox = document.querySelector("[data-live-group]");
/** The list a new message goes to: a conversation's or a group's (a page has one or neither). */
const messageBox = dmBox ?? groupBox;
/** The signed-in person's username, from the header's link to their profile. */
const me = decodeURIComponent(document.querySelector('.who a[href^="/u/"]')?.getAttribute("href")?.slice(3) ?? "").toLowerCase();
const postBox = document.querySelector("[data-live-post]");
const baseTitle = document.title;
const HIDDEN_CLOSE_MS = 60_000;

let source = null;
let hiddenTimer = null;
let stopped = false;

// ---- 1. the unread count
function showUnread(n) {
  if (!unreadLink || !Number.isInteger(n) || n < 0) return;
  unreadLink.textContent = n ? `Notifications (${n})` : "Notifications";
  document.title = n ? `(${n}) ${baseTitle}` : baseTitle;
}

// ---- 2. a conversation
let status = null;
if (messageBox) {
  status = document.createElement("p");
  status.className = "vh";
  status.setAttribute("role", "status");
  messageBox.after(status);
}

let refreshing = null;
let again = false;
/** Fetches the conversation's or group's page and appends what it shows that this page does not; one fetch at a time. */
async function refreshMessages() {
  if (refreshing) {
    again = true;
    return refreshing;
  }
  refreshing = (async () => {
    do {
      again = false;
      try {
        const res = await fetch(location.pathname, { credentials: "same-origin", headers: { accept: "text/html" } });
        if (!res.ok || res.redirected) return;
        const fresh = new DOMParser().parseFromString(await res.text(), "text/html").querySelector(dmBox ? "[data-live-dm]" : "[data-live-group]");
        if (fresh) merge(fresh);
      } catch {
        // The next message, or the next reconnection, tries again.
      }
    } while (again);
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

function merge(fresh) {
  if (dmBox) dmBox.dataset.conversation = fresh.dataset.conversation ?? "";
  const list = messageBox.querySelector("ol.dm");
  const freshList = fresh.querySelector("ol.dm");
  if (!freshList) return;
  if (!list) {
    messageBox.replaceChildren(...fresh.childNodes);
    return;
  }
  for (const li of freshList.children) {
    if (!li.id || document.getElementById(li.id)) continue;
    list.append(document.importNode(li, true));
  }
}

function onGroupMessage(data) {
  if (data.conversation_id !== groupBox.dataset.liveGroup) return;
  if (document.getElementById(`message-${data.message_id}`)) return;
  const sender = data.message?.sender?.username ?? "";
  if (sender && sender.toLowerCase() !== me) status.textContent = `New message from ${sender}`;
  refreshMessages();
}

function onMessage(data) {
  if (data.is_group) {
    if (groupBox) onGroupMessage(data);
    return;
  }
  if (!dmBox) return;
  const peer = (dmBox.dataset.liveDm ?? "").toLowerCase();
  const conversation = dmBox.dataset.conversation ?? "";
  const sender = data.message?.sender?.username ?? "";
  const ours = conversation ? data.conversation_id === conversation : sender.toLowerCase() === peer;
  if (!ours) return;
  if (document.getElementById(`message-${data.message_id}`)) return;
  if (sender.toLowerCase() === peer) status.textContent = `New message from ${sender}`;
  refreshMessages();
}

// ---- 3. a post's new comments
const seen = new Set();
let note = null;
if (postBox) {
  note = document.createElement("p");
  note.className = "live-note";
  note.setAttribute("role", "status");
  (postBox.querySelector("h2") ?? postBox.firstElementChild)?.after(note);
}
let firstNew = null;

function onComment(data) {
  if (!note || data.post_id !== postBox.dataset.livePost || !data.comment_id || seen.has(data.comment_id)) return;
  if (document.getElementById(`comment-${data.comment_id}`)) return;
  seen.add(data.comment_id);
  firstNew ??= data.comment_id;
  const target = `/post/${postBox.dataset.livePost}`;
  const link = document.createElement("a");
  link.href = `${target}#comment-${firstNew}`;
  link.textContent = "Show";
  link.addEventListener("click", (e) => {
    if (location.pathname !== target || location.search) return;
    e.preventDefault();
    location.hash = `comment-${firstNew}`;
    location.reload();
  });
  const n = seen.size;
  note.replaceChildren(`${n} new ${n === 1 ? "comment" : "comments"} — `, link);
}

// ---- the stream
function parse(e) {
  try {
    return JSON.parse(e.data);
  } catch {
    return null;
  }
}

function open(catchUp) {
  if (source || stopped) return;
  const url = postBox ? `/live?post=${encodeURIComponent(postBox.dataset.livePost)}` : "/live";
  source = new EventSource(url);
  source.addEventListener("notifications.unread", (e) => showUnread(parse(e)?.unread));
  source.addEventListener("dm.new", (e) => {
    const data = parse(e);
    if (data) onMessage(data);
  });
  source.addEventListener("comment.new", (e) => {
    const data = parse(e);
    if (data) onComment(data);
  });
  source.addEventListener("session.ended", () => stop());
  source.addEventListener("error", () => {
    // CLOSED: the server refused (signed out); EventSource retries by itself otherwise.
    if (source?.readyState === EventSource.CLOSED) stop();
  });
  if (catchUp && messageBox) source.addEventListener("open", () => refreshMessages(), { once: true });
}

function close() {
  source?.close();
  source = null;
}

function stop() {
  stopped = true;
  close();
}

if (unreadLink || messageBox || postBox) {
  open(false);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") {
      hiddenTimer ??= setTimeout(() => {
        hiddenTimer = null;
        close();
      }, HIDDEN_CLOSE_MS);
      return;
    }
    clearTimeout(hiddenTimer);
    hiddenTimer = null;
    if (!source) open(true);
  });
  window.addEventListener("pagehide", close);
  window.addEventListener("pageshow", (e) => {
    if (e.persisted && document.visibilityState === "visible") open(true);
  });
}
