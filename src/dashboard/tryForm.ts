/**
 * How the Try it page's form reads (README, Dashboard: Try it). A browser sends every field of a form, filled or
 * not, and an empty file part when no file is chosen; the API's clients send only what they mean.
 * So on this page a blank field is an absent one: no schema means the default fields, no file
 * means `No file uploaded`, as the API answers a request without them.
 */
import type { DescribeErrorTag } from "../domain/describeChecks.ts"
import type { DescribeForm, FormText } from "../domain/describeForm.ts"
import type { TryFields } from "./tryCurl.ts"

const filled = (field: FormText | undefined) => (field === undefined || field.text.trim() === "" ? undefined : field)

export const blankFieldsAbsent = (form: DescribeForm): DescribeForm => ({
  image: form.image === undefined || form.image.size === 0 ? undefined : form.image,
  imageUrl: filled(form.imageUrl),
  schema: filled(form.schema),
  keywords: filled(form.keywords),
  context: filled(form.context),
  language: filled(form.language)
})

/** The text fields as typed, to fill the form again and write the curl command. */
export const typedFields = (form: DescribeForm): TryFields => ({
  language: form.language?.text,
  keywords: form.keywords?.text,
  context: form.context?.text,
  schema: form.schema?.text
})

/** The form's field at fault for a refusal, which the page marks and links to; none for the others (a key, credit, the model). */
export const faultyField = (tag: DescribeErrorTag): "image" | "language" | "schema" | undefined => {
  switch (tag) {
    case "RequestTooLarge":
    case "NoFileUploaded":
    case "InvalidImageFile":
    case "ImageTooLarge":
    case "ImageTooManyPixels":
    case "ImageTooManyScans":
    case "ImageTooManyFrames":
    case "ImageProcessingFailed":
      return "image"
    case "LanguageTooLong":
      return "language"
    case "InvalidSchema":
      return "schema"
    default:
      return undefined
  }
}
