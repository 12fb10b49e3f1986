import { endpoints, type EndpointInput } from '@citrus/contracts'
import { api, isInvalidResponse } from '../../../lib/api-client'

export type LoginRequest = EndpointInput<typeof endpoints.users.login>['body']

export const NO_TOKEN_MESSAGE = 'No token received'

/** POST /users/login → { token } (spec 1 §7). A response without a token is an error of its own. */
export async function requestLoginToken(credentials: LoginRequest): Promise<string> {
  try {
    const { token } = await api(endpoints.users.login, { body: credentials })
    if (token !== '') return token
  } catch (error) {
    if (!isInvalidResponse(error)) throw error
  }
  throw new Error(NO_TOKEN_MESSAGE)
}
