/** What a thrown value says: an `Error`'s message, or the value as text (for logs and error messages). */
export const messageOf = (thrown: unknown): string => (thrown instanceof Error ? thrown.message : String(thrown))
