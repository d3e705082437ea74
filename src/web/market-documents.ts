// Documents for sale on the web: a document's page (its free preview, buying it, its download
// once paid), the person's purchases, a purchase with its invoice and the check form, and the
// download itself. Buying calls the documents service as the signed-in person (a new invoice
// per purchase, as the API's route); the download is the service's own authorisation (the seller,
// or a buyer with a paid purchase) and is offered only to them: a GET never mints an invoice, so
// anyone else is sent back to the document's page rather than to the API's L402 challenge.
import type { Ctx } from "../core/context";
import { ApiError } from "../core/errors";
import type { Caller } from "../features/auth/caller";
import * as documents from "../features/documents/service";
import * as users from "../features/users/service";
import { formAction, idOr404, noticeOf, pageOf, PER_PAGE, strings } from "./market-shared";
import { documentHref, purchaseHref } from "./pages/market";
import { DocumentPage, PurchasePage, PurchasesPage, type DocumentView } from "./pages/market-documents";
import { servePage } from "./respond";
import { FORM, PAGE } from "./route-options";
import { isSignedIn, seeOther, toSignIn } from "./session";
import type { Visit } from "./visit";
import type { WebArea } from "./web-app";

const DOC_NOTICES: Record<string, string> = {};
const PURCHASE_NOTICES: Record<string, string> = {
  bought: "Your purchase is started: pay the invoice below.",
  checked: "The wallet was asked about the payment.",
};

/** Enough of the person's purchases to find those of one document. */
const OWN_PURCHASES = 200;

/** The reader's purchases of document `id`, newest first (none for an anonymous reader). */
function purchasesOf(ctx: Ctx, caller: Caller | null, id: string): documents.PurchaseRow[] {
  if (!caller) return [];
  return documents
    .myPurchases(ctx, caller, { limit: OWN_PURCHASES, offset: 0 })
    .items.map((r) => r.purchase)
    .filter((p) => p.documentId === id);
}

function documentView(ctx: Ctx, caller: Caller | null, id: string): DocumentView {
  const { doc, isTruncated } = documents.previewDocument(ctx, caller, id);
  const purchases = purchasesOf(ctx, caller, doc.id);
  const owned = caller !== null && (caller.id === doc.sellerId || purchases.some(documents.isPaid));
  return { doc, seller: users.findById(ctx, doc.sellerId) ?? undefined, isTruncated, purchases, owned };
}

/** The document a purchase is of, as the buyer may see it (a paid buyer keeps a delisted one). */
function documentOf(ctx: Ctx, caller: Caller, id: string): documents.DocumentRow | null {
  try {
    return documents.getDocument(ctx, caller, id);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export const marketDocumentRoutes: WebArea = (ctx, app) => {
  const documentPage = (visit: Visit, id: string, flash: Parameters<typeof DocumentPage>[2] = {}) => DocumentPage(visit, documentView(ctx, visit.caller, id), flash);
  /** A purchase's page: checked with the wallet when pending (the API's check, which is the buyer's only read of one purchase). */
  const purchasePage = async (visit: Visit, id: string, flash: Parameters<typeof PurchasePage>[2] = {}) => {
    if (!visit.caller) throw new ApiError(404, "NOT_FOUND", "Purchase not found");
    let purchase: documents.PurchaseRow;
    try {
      purchase = await documents.checkPurchase(ctx, visit.caller, id);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status < 500) throw err;
      // The wallet did not answer: the purchase as last known, found in the person's list.
      const known = documents.myPurchases(ctx, visit.caller, { limit: OWN_PURCHASES, offset: 0 }).items.find((r) => r.purchase.id === id);
      if (!known) throw err;
      purchase = known.purchase;
      flash = { ...flash, error: err.message };
    }
    return PurchasePage(visit, { purchase, doc: documentOf(ctx, visit.caller, purchase.documentId), paid: documents.isPaid(purchase) }, flash);
  };

  app
    .get(
      "/marketplace/documents/:id",
      ({ request, params, query }) => servePage(ctx, request, () => ({ key: null, render: (visit) => documentPage(visit, idOr404(params.id), { notice: noticeOf(query, DOC_NOTICES) }) })),
      PAGE,
    )
    .post(
      "/marketplace/documents/:id/buy",
      ({ web, request, params }) =>
        formAction(ctx, web, request, {
          back: documentHref(encodeURIComponent(params.id)),
          limits: ["document_purchase"],
          act: async (w) => `${purchaseHref((await documents.purchaseDocument(ctx, w.viewer.caller, idOr404(params.id))).id)}?notice=bought`,
          again: (visit, error) => documentPage(visit, idOr404(params.id), { error }),
        }),
      FORM,
    )
    .get(
      "/marketplace/documents/:id/download",
      async ({ web, params }) => {
        const back = documentHref(encodeURIComponent(params.id));
        if (!isSignedIn(web)) return toSignIn(web, back);
        const id = (() => {
          try {
            return idOr404(params.id);
          } catch {
            return null;
          }
        })();
        if (!id) return seeOther(web, "/marketplace/documents");
        const caller = web.viewer.caller;
        let doc: documents.DocumentRow;
        try {
          doc = documents.getDocument(ctx, caller, id);
        } catch {
          return seeOther(web, "/marketplace/documents");
        }
        if (doc.sellerId !== caller.id && !purchasesOf(ctx, caller, doc.id).some(documents.isPaid)) return seeOther(web, documentHref(doc.id));
        const r = await documents.download(ctx, { caller, ip: web.client.ip, authorization: null }, doc.id);
        return new Response(r.content, {
          headers: {
            "content-type": `${r.doc.contentType}; charset=utf-8`,
            "content-disposition": contentDisposition(r.doc.filename),
            "x-content-type-options": "nosniff",
            "content-security-policy": "sandbox; default-src 'none'",
            "cache-control": "private, no-store",
            etag: `"${r.doc.contentHash}"`,
          },
        });
      },
      PAGE,
    )
    .get(
      "/marketplace/purchases",
      ({ web, request, query }) => {
        if (!isSignedIn(web)) return toSignIn(web, "/marketplace/purchases");
        const n = pageOf(strings(query).page);
        return servePage(ctx, request, () => ({
          key: null,
          render: (visit) => {
            const r = documents.myPurchases(ctx, visit.caller!, { limit: PER_PAGE, offset: (n - 1) * PER_PAGE, page: n });
            return PurchasesPage(visit, { items: r.items, page: n, hasMore: n * PER_PAGE < r.total });
          },
        }));
      },
      PAGE,
    )
    .get(
      "/marketplace/purchases/:id",
      ({ web, request, params, query }) => {
        if (!isSignedIn(web)) return toSignIn(web, purchaseHref(encodeURIComponent(params.id)));
        return servePage(ctx, request, () => ({ key: null, render: (visit) => purchasePage(visit, idOr404(params.id), { notice: noticeOf(query, PURCHASE_NOTICES) }) }));
      },
      PAGE,
    )
    .post(
      "/marketplace/purchases/:id/check",
      ({ web, request, params }) =>
        formAction(ctx, web, request, {
          back: purchaseHref(encodeURIComponent(params.id)),
          limits: ["document_purchase_check"],
          act: async (w) => {
            const id = idOr404(params.id);
            await documents.checkPurchase(ctx, w.viewer.caller, id);
            return `${purchaseHref(id)}?notice=checked`;
          },
          again: (visit, error) => purchasePage(visit, idOr404(params.id), { error }),
        }),
      FORM,
    );
};
