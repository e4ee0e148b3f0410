/**
 * The error kinds a usage row records (a `DescribeError`'s tag, or how the request ended), in the
 * words of the Usage page and its CSV export: what happened, not the name of a class.
 */
const words: Readonly<Record<string, string>> = {
  NoCreditLeft: "No credit left",
  RequestTooLarge: "Request over 11 MB",
  NotMultipart: "Not a multipart form",
  UploadTimedOut: "Upload too slow",
  UploadBudgetTimedOut: "Server busy, retry",
  NoFileUploaded: "No image in the form",
  LanguageTooLong: "Language too long",
  InvalidSchema: "Invalid schema",
  InvalidImageFile: "Not a JPEG, PNG, WebP or GIF",
  ImageUrlRefused: "Image URL not public",
  ImageUrlFetchFailed: "Image URL could not be fetched",
  ImageTooLarge: "Image over 10 MB",
  ImageTooManyPixels: "Image has too many pixels",
  ImageTooManyScans: "JPEG has too many scans",
  ImageTooManyFrames: "WebP has too many frames",
  ImageProcessingFailed: "Image could not be read",
  AnswerTooLong: "Answer too long",
  GenerationFailed: "Model failed, retry",
  ClientClosedRequest: "Client closed the connection",
  ReserveFailed: "Server error, retry",
  SettleFailed: "Server error, retry",
  Abandoned: "Server stopped, retry",
  Stopped: "Server stopped, retry",
  Unexpected: "Server error, retry"
}

/** `null` is a request without error; an unknown kind (a newer version's) is shown as it is. */
export const errorWords = (kind: string | null): string =>
  kind === null ? "None" : Object.hasOwn(words, kind) ? (words[kind] ?? kind) : kind
