import { FEEDBACK_DEFAULT_RATING, FEEDBACK_ISSUE_OPTIONS, feedbackRequestSchema } from '@citrus/contracts'
import { Button, Checkbox, SegmentedControl, Stack, Text, Textarea } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import type { FeedbackRequest } from '../api/submit-feedback'

const capitalize = (value: string) => value.charAt(0).toUpperCase() + value.slice(1)

/** Feedback form (spec 1 §2, §9): rating 1-5 (default '3'), issues, additional feedback; checked with the request schema. */
export function FeedbackForm({ onSubmit, submitting }: { onSubmit: (value: FeedbackRequest) => void; submitting?: boolean }) {
  const form = useForm({
    mode: 'controlled',
    initialValues: { rating: FEEDBACK_DEFAULT_RATING as string, issues: [] as string[], feedback: '' },
    validate: schemaResolver(feedbackRequestSchema, { sync: true }),
  })

  return (
    <form
      onSubmit={form.onSubmit((values) =>
        onSubmit({ rating: Number(values.rating), issues: values.issues, feedback: values.feedback.trim() }),
      )}
    >
      <Stack gap="md">
        <Stack gap={6}>
          <Text size="sm" fw={600} id="feedback-rating-label">
            How would you rate your experience?
          </Text>
          <SegmentedControl
            aria-labelledby="feedback-rating-label"
            {...form.getInputProps('rating')}
            data={['1', '2', '3', '4', '5']}
            fullWidth
          />
        </Stack>
        <Checkbox.Group label="What issues did you run into?" {...form.getInputProps('issues')}>
          <Stack gap={6} mt={6}>
            {FEEDBACK_ISSUE_OPTIONS.map((option) => (
              <Checkbox key={option} value={option} label={capitalize(option)} />
            ))}
          </Stack>
        </Checkbox.Group>
        <Textarea label="Additional feedback" placeholder="Tell us more" rows={4} maxLength={5000} {...form.getInputProps('feedback')} />
        <Button type="submit" loading={submitting}>
          Submit Feedback
        </Button>
      </Stack>
    </form>
  )
}
