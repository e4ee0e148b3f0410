/**
 * Confirmations shown after a redirect (`?done=...`). Only these fixed texts can appear: nothing
 * from the address is ever shown, so a crafted link cannot put words on a page.
 */
const notices: Readonly<Record<string, string>> = {
  welcome: "Your account is ready. Create an API key to start, or try an image.",
  // What the overview shows instead of `welcome` while the balance is 0: nothing to try yet.
  "welcome-no-credit": "Your account is ready. It has no credits yet: see below how to get some.",
  "logged-out": "You have logged out.",
  "password-changed": "Your password is changed; every other session of yours has ended.",
  "password-reset": "Your new password is set, and every other session of yours has ended.",
  "key-deleted": "The key is deleted: from now on, every request with it is refused.",
  "webhook-secret-rotated": "The webhook secret is replaced: deliveries from now on are signed with the new one only."
}

export const noticeOf = (done: string | undefined) => (done !== undefined && Object.hasOwn(notices, done) ? notices[done] : undefined)
