/**
 * How the Try it page's form reads (README, Dashboard: Try it). A browser sends every field of a form, filled or
 * not, and an empty file part when no file is chosen; the API's clients send only what they mean.
 * So on this page a blank field is an absent one: no schema means the default fields, no file
 * means `No file uploaded`, as the API answers a request without them.
 */
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
