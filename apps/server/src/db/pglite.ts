import { PGlite, type PGliteOptions } from '@electric-sql/pglite'

/**
 * PGlite whose failed statements leave nothing behind on the WebAssembly stack (docs/decisions/0011).
 *
 * PostgreSQL reports an ERROR by longjmp-ing back to the main loop, which discards every frame in between.
 * PGlite 0.5.8 emulates that jump with a JavaScript exception that it catches around `_PostgresMainLoopOnce`
 * before running the main loop's error recovery (`_PostgresMainLongJmp`), but it never moves the wasm shadow
 * stack pointer (the `__stack_pointer` global) back up: each ERROR leaves its frames allocated, about
 * 1.1 KB for `SELECT 1/0`. After ~1,700-1,900 errors the 2 MB stack is used up and every statement fails with
 * "stack depth limit exceeded" (even ROLLBACK, so transactions stay aborted: 25P02); beyond that the stack
 * grows into the data below it. Every entry point leaks alike (query, exec, execProtocol, the raw ones).
 *
 * A protocol call always enters the backend from JavaScript with the same stack, and a call that returns
 * normally leaves the pointer where it found it; so restoring the pointer to its value at entry does what the
 * native longjmp does and nothing else.
 */
/** a mutable i32 WebAssembly.Global (the server's TypeScript libraries do not declare WebAssembly) */
interface StackPointer {
  value: number
}

class StackSafePGlite extends PGlite {
  #stackPointer: StackPointer | undefined

  override execProtocolRawSync(message: Uint8Array): Uint8Array {
    const pointer = (this.#stackPointer ??= stackPointerOf(this))
    const entry = pointer.value
    try {
      return super.execProtocolRawSync(message)
    } finally {
      pointer.value = entry
    }
  }
}

function stackPointerOf(db: PGlite): StackPointer {
  const pointer = (db.Module as unknown as { ___stack_pointer?: Partial<StackPointer> }).___stack_pointer
  if (typeof pointer?.value !== 'number') {
    // The version is pinned exactly (apps/server/package.json); a new one must be checked before it is used.
    throw new Error('This PGlite build does not export __stack_pointer: the stack recovery of db/pglite.ts needs updating')
  }
  return pointer as StackPointer
}

/** A ready PGlite instance with the stack recovery above. */
export async function createPGlite(options: PGliteOptions): Promise<PGlite> {
  const db = new StackSafePGlite(options)
  await db.waitReady
  stackPointerOf(db)
  return db
}

/** The wasm stack pointer between calls (tests: it must not move down with failed statements). */
export function stackPointer(db: PGlite): number {
  return stackPointerOf(db).value
}
