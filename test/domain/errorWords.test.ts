import { describe, expect, it } from "@effect/vitest"
import { errorWords } from "../../src/domain/errorWords.ts"

/** Every kind a usage row can record: a `DescribeError` after check 2, or how the request ended. */
const recorded = [
  "NoCreditLeft", "RequestTooLarge", "NotMultipart", "UploadTimedOut", "UploadBudgetTimedOut", "NoFileUploaded", "LanguageTooLong",
  "InvalidSchema", "InvalidImageFile", "ImageTooLarge", "ImageTooManyPixels", "ImageTooManyScans", "ImageProcessingFailed",
  "AnswerTooLong", "GenerationFailed", "ClientClosedRequest", "ReserveFailed", "SettleFailed", "Abandoned", "Stopped", "Unexpected"
]

describe("errorWords", () => {
  it("says each recorded error kind in words: short, with spaces, never the class name", () => {
    const phrases = recorded.map((kind) => [kind, errorWords(kind)] as const)
    expect(phrases.filter(([kind, words]) => words === kind || !words.includes(" ") || words.length > 32)).toEqual([])
    expect([errorWords("ImageTooLarge"), errorWords("NoCreditLeft"), errorWords(null)]).toEqual(["Image over 10 MB", "No credit left", "None"])
  })

  it("shows an unknown kind (a newer version's) as it is, and nothing from Object's prototype", () => {
    expect(["SomethingNew", "__proto__", "constructor", "toString"].map(errorWords)).toEqual(["SomethingNew", "__proto__", "constructor", "toString"])
  })
})
