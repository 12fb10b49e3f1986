import { api } from '../../../lib/api-client'

export interface FeedbackRequest {
  rating: number
  issues: string[]
  feedback: string
}

/** POST /feedback {rating, issues, feedback}; the server stores it and forwards it to the chat webhook. */
export function submitFeedback(body: FeedbackRequest): Promise<unknown> {
  return api.post('/feedback', body)
}
