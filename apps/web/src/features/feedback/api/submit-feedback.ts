import { endpoints, type EndpointInput } from '@citrus/contracts'
import { useApiMutation } from '../../../hooks/use-api'

export type FeedbackRequest = EndpointInput<typeof endpoints.feedback.submit>['body']

/** POST /feedback {rating, issues, feedback}; the server stores it and forwards it to the chat webhook. */
export function useSubmitFeedback() {
  return useApiMutation(endpoints.feedback.submit)
}
