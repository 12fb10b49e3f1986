import { FEEDBACK_DEFAULT_RATING, FEEDBACK_ISSUE_OPTIONS } from '@citrus/contracts'
import { Button, Checkbox, SegmentedControl, Stack, Text, Textarea } from '@mantine/core'
import { useState, type FormEvent } from 'react'
import type { FeedbackRequest } from '../api/submit-feedback'

const capitalize = (value: string) => value.charAt(0).toUpperCase() + value.slice(1)

/** Feedback form (spec 1 §2, §9): rating 1-5 (default '3'), issues, additional feedback. */
export function FeedbackForm({ onSubmit, submitting }: { onSubmit: (value: FeedbackRequest) => void; submitting?: boolean }) {
  const [rating, setRating] = useState<string>(FEEDBACK_DEFAULT_RATING)
  const [issues, setIssues] = useState<string[]>([])
  const [feedback, setFeedback] = useState('')

  function handleSubmit(event: FormEvent) {
    event.preventDefault()
    onSubmit({ rating: Number(rating), issues, feedback: feedback.trim() })
  }

  return (
    <form onSubmit={handleSubmit}>
      <Stack gap="md">
        <Stack gap={6}>
          <Text size="sm" fw={600} id="feedback-rating-label">
            How would you rate your experience?
          </Text>
          <SegmentedControl
            aria-labelledby="feedback-rating-label"
            value={rating}
            onChange={setRating}
            data={['1', '2', '3', '4', '5']}
            fullWidth
          />
        </Stack>
        <Checkbox.Group label="What issues did you run into?" value={issues} onChange={setIssues}>
          <Stack gap={6} mt={6}>
            {FEEDBACK_ISSUE_OPTIONS.map((option) => (
              <Checkbox key={option} value={option} label={capitalize(option)} />
            ))}
          </Stack>
        </Checkbox.Group>
        <Textarea
          label="Additional feedback"
          placeholder="Tell us more"
          rows={4}
          maxLength={5000}
          value={feedback}
          onChange={(event) => setFeedback(event.currentTarget.value)}
        />
        <Button type="submit" loading={submitting}>
          Submit Feedback
        </Button>
      </Stack>
    </form>
  )
}
