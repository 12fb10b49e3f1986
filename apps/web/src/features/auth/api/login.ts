import { api } from '../../../lib/api-client'

export interface LoginRequest {
  email: string
  password: string
}

export interface LoginResponse {
  token?: string
}

export const NO_TOKEN_MESSAGE = 'No token received'

/** POST /users/login → { token } (spec 1 §7). A response without a token is an error. */
export async function requestLoginToken(credentials: LoginRequest): Promise<string> {
  const response = await api.post<LoginResponse | undefined>('/users/login', credentials)
  const token = response?.token
  if (typeof token !== 'string' || token === '') throw new Error(NO_TOKEN_MESSAGE)
  return token
}
