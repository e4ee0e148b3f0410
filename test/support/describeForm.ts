/** Describe forms as the form reader gives them, built field by field in tests. */
import type { DescribeForm, FormText } from "../../src/domain/describeForm.ts"

export const formText = (value: string, truncated = false): FormText => ({ text: value, truncated })

/** A form with only `fields`; every other field absent. */
export const formOf = (fields: Partial<DescribeForm>): DescribeForm => ({
  image: undefined,
  imageUrl: undefined,
  schema: undefined,
  keywords: undefined,
  context: undefined,
  language: undefined,
  ...fields
})
