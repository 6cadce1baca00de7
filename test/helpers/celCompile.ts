/** Whether a CEL expression compiles: the error message, or undefined (for tests of the expressions the charts write). */
import { compile } from '../../src/cel/cel';

export function compileError(expression: string): string | undefined {
  try {
    compile(expression);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}
