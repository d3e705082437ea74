// The marketplace's invoices (web/pages/market-invoice.tsx): while an invoice waits for its
// payment, ask its status address now and then (same origin, the session cookie) and reload the
// page once the status is no longer "pending", so it shows what follows (paid, the download, the
// next step). The address asks the wallet at most every few seconds whoever asks; it answers
// `{"status": null}` when it did not ask this time. Without this script the page's "Refresh"
// link and "Check payment" form do the same by hand.
const box = document.querySelector("[data-invoice-poll]");
const FIRST_MS = 2_000;
const MAX_MS = 30_000;
/** Stop asking after this long: an invoice is paid within minutes or not at all. */
const GIVE_UP_MS = 30 * 60_000;

if (box) {
  const url = box.getAttribute("data-invoice-poll");
  const shown = box.getAttribute("data-invoice-state");
  const started = Date.now();
  let wait = FIRST_MS;
  const ask = async () => {
    if (Date.now() - started > GIVE_UP_MS) return;
    if (document.visibilityState === "visible") {
      try {
        const res = await fetch(url, { credentials: "same-origin", headers: { accept: "application/json" } });
        if (res.ok) {
          const { status } = await res.json();
          if (typeof status === "string" && status !== shown) {
            location.reload();
            return;
          }
        }
      } catch {
        // Offline for a moment: the next round asks again.
      }
    }
    wait = Math.min(MAX_MS, Math.round(wait * 1.25));
    setTimeout(ask, wait);
  };
  setTimeout(ask, wait);
}
