/**
 * A list of numbers in a typed array that grows as it is pushed to: for columns of a million entries, which as plain
 * arrays would be a million heap values for the garbage collector to walk.
 */
type TypedArray = Int32Array | Uint8Array | Float64Array;
type TypedArrayOf<T extends TypedArray> = { new (length: number): T };

export class GrowingArray<T extends TypedArray> {
  private data: T;
  length = 0;

  constructor(
    private readonly Kind: TypedArrayOf<T>,
    capacity = 1024,
  ) {
    this.data = new Kind(capacity);
  }

  push(value: number): number {
    if (this.length === this.data.length) {
      const larger = new this.Kind(this.data.length * 2);
      larger.set(this.data);
      this.data = larger;
    }
    this.data[this.length] = value;
    return this.length++;
  }

  get(index: number): number {
    return this.data[index];
  }

  set(index: number, value: number): void {
    this.data[index] = value;
  }

  /** The entries pushed, as a typed array of exactly that length (a copy: later pushes do not change it). */
  toArray(): T {
    return this.data.slice(0, this.length) as T;
  }
}
