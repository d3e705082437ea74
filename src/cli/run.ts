// What the commands run (cli/commands.ts), behind one dynamic import. In the executable, code
// splitting then keeps the server's code and the other commands' in one chunk, which `--help` and
// `version` never load. Imported separately, each command's modules and the server's would be cut
// into chunks shared between them, and calls between chunks would go through module bindings,
// which the server's hottest paths would pay on every request.
export { serve } from "../supervisor";
export { migrateDataDir } from "../ops/maintenance";
export { answerBugReport, createUser, grantUserKarma, invite, listBugReports, rotateUserKey, settleInvoice, showLedger, signInLink, suspendUser, unsuspendUser } from "../ops/admin";
export { backup, restore } from "../ops/backup";
export { runDoctor } from "../ops/doctor";
export { reloadServer } from "../ops/reload";
