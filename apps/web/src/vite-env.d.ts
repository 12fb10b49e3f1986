/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Base URL of the API; documented paths are relative to it. Default '/api'. */
  readonly VITE_API_BASE_URL?: string
  /** Contact address shown in product-access messages. */
  readonly VITE_CONTACT_EMAIL?: string
}

interface ImportMeta {
  readonly env: ImportMetaEnv
}
