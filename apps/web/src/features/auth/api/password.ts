import { api } from '../../../lib/api-client'

export interface SignUpRequest {
  email: string
  password: string
  activation_key: string
}

/** POST /users/user-signup → { message } (spec 1 §7). */
export function requestSignUp(body: SignUpRequest): Promise<{ message?: string } | undefined> {
  return api.post<{ message?: string } | undefined>('/users/user-signup', body)
}

/** POST /users/password-reset-email → { message_id }. */
export function requestResetEmail(email: string): Promise<{ message_id?: string | number } | undefined> {
  return api.post<{ message_id?: string | number } | undefined>('/users/password-reset-email', { email })
}

/** POST /users/password-reset → { message_id }. */
export function requestPasswordReset(body: { new_password: string; temp_jwt_token: string }): Promise<{ message_id?: string | number } | undefined> {
  return api.post<{ message_id?: string | number } | undefined>('/users/password-reset', body)
}
