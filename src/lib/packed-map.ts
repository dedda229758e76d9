// A map of strings to strings held as bytes outside V8's heap: one growing buffer of records
// and a table of their offsets (open addressing). For tens of thousands of small entries that
// live for a whole run (a OneRoster push's enrollments, docs/ssp-push.md "Memory model"): a Map
// of strings costs a string object for each key and value (16 bytes of header, 8-byte
// aligned) and some 40 bytes of table an entry, and the heap that holds them grows by half
// again before V8 collects it; here an entry costs its UTF-8 bytes, 5 bytes of header and 4 to 8
// bytes of table.
//
// Records are appended, never rewritten: setting a key again appends its new value and points
// the table at it (the old record is left as dead bytes), so a run that changes most entries
// holds them about twice. Each record carries a mark, set by `set(…, { mark: true })` and kept
// by every later record of the key, so what changed since loading can be listed (marked()).

const EMPTY = 0;
/** Record flags. */
const MARKED = 1;
const DELETED = 2;
/** Flags (1 byte), key length and value length (2 bytes each). */
const HEADER = 5;
const MAX_PART = 0xffff;
/** Address space reserved a map (pages are used only as written); offsets fit an Int32Array. */
const MAX_BYTES = 2 ** 30;

export class PackedMap {
  /**
   * The records: a resizable ArrayBuffer grows in place (the address space is reserved, pages are
   * used as written), so growing leaves no old copy resident until the next full collection.
   */
  private readonly memory = new ArrayBuffer(64 * 1024, { maxByteLength: MAX_BYTES });
  private bytes = Buffer.from(this.memory, 0, this.memory.byteLength);
  private end = 0;
  /** Record offset + 1 per slot (0: empty); a power of two long, at most half full. */
  private slots = new Int32Array(1024);
  private used = 0;
  private scratch = Buffer.allocUnsafeSlow(1024);
  private live = 0;

  /** Entries present (not deleted). */
  get size(): number {
    return this.live;
  }

  get(key: string): string | undefined {
    const at = this.find(this.encode(key));
    const record = this.slots[at] - 1;
    if (record < 0 || this.bytes[record] & DELETED) return undefined;
    const keyLength = this.bytes.readUInt16LE(record + 1);
    const valueLength = this.bytes.readUInt16LE(record + 3);
    const start = record + HEADER + keyLength;
    return this.bytes.toString('utf8', start, start + valueLength);
  }

  has(key: string): boolean {
    const record = this.slots[this.find(this.encode(key))] - 1;
    return record >= 0 && !(this.bytes[record] & DELETED);
  }

  /** Sets (or with null deletes) the key; `mark`: a change to list in marked(). */
  set(key: string, value: string | null, options: { mark?: boolean } = {}): void {
    const keyLength = this.encode(key);
    let at = this.find(keyLength);
    const before = this.slots[at] - 1;
    const wasLive = before >= 0 && !(this.bytes[before] & DELETED);
    if (before < 0 && value === null) return;
    const valueLength = value === null ? 0 : Buffer.byteLength(value);
    if (valueLength > MAX_PART) throw new RangeError(`a value of ${valueLength} bytes is too long`);
    this.reserve(HEADER + keyLength + valueLength);
    const record = this.end;
    const marked = options.mark || (before >= 0 && this.bytes[before] & MARKED);
    this.bytes[record] = (marked ? MARKED : 0) | (value === null ? DELETED : 0);
    this.bytes.writeUInt16LE(keyLength, record + 1);
    this.bytes.writeUInt16LE(valueLength, record + 3);
    this.scratch.copy(this.bytes, record + HEADER, 0, keyLength);
    if (value !== null) this.bytes.write(value, record + HEADER + keyLength, valueLength, 'utf8');
    this.end += HEADER + keyLength + valueLength;
    this.live += (value === null ? 0 : 1) - (wasLive ? 1 : 0);
    if (before < 0) {
      if ((this.used + 1) * 2 > this.slots.length) {
        this.grow();
        at = this.find(this.encode(key));
      }
      this.used++;
    }
    this.slots[at] = record + 1;
  }

  /** The entries present, in no set order. */
  *entries(): Generator<[string, string]> {
    for (const record of this.current()) {
      if (!(this.bytes[record] & DELETED)) yield [this.keyAt(record), this.valueAt(record)];
    }
  }

  /** The keys marked as changed, each once with its value now (null: deleted). */
  *marked(): Generator<[string, string | null]> {
    for (const record of this.current()) {
      if (!(this.bytes[record] & MARKED)) continue;
      yield [this.keyAt(record), this.bytes[record] & DELETED ? null : this.valueAt(record)];
    }
  }

  /** Each key's last record, in the order of the records. */
  private *current(): Generator<number> {
    const last = this.slots.filter((s) => s !== EMPTY).map((s) => s - 1);
    last.sort();
    yield* last;
  }

  private keyAt(record: number): string {
    return this.bytes.toString(
      'utf8',
      record + HEADER,
      record + HEADER + this.bytes.readUInt16LE(record + 1),
    );
  }

  private valueAt(record: number): string {
    const start = record + HEADER + this.bytes.readUInt16LE(record + 1);
    return this.bytes.toString('utf8', start, start + this.bytes.readUInt16LE(record + 3));
  }

  /** The key's UTF-8 bytes into the scratch buffer; returns their count. */
  private encode(key: string): number {
    if (key.length * 3 > this.scratch.length) this.scratch = Buffer.allocUnsafeSlow(key.length * 3);
    const length = this.scratch.write(key, 0, 'utf8');
    if (length > MAX_PART) throw new RangeError(`a key of ${length} bytes is too long`);
    return length;
  }

  /** The slot holding the scratch key's record, or the empty slot where it would go. */
  private find(keyLength: number): number {
    const mask = this.slots.length - 1;
    let at = hash(this.scratch, 0, keyLength) & mask;
    for (;;) {
      const record = this.slots[at] - 1;
      if (record < 0) return at;
      if (
        this.bytes.readUInt16LE(record + 1) === keyLength &&
        this.scratch.compare(this.bytes, record + HEADER, record + HEADER + keyLength, 0, keyLength) === 0
      )
        return at;
      at = (at + 1) & mask;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    const mask = this.slots.length - 1;
    for (const slot of old) {
      if (slot === EMPTY) continue;
      const record = slot - 1;
      let at = hash(this.bytes, record + HEADER, this.bytes.readUInt16LE(record + 1)) & mask;
      while (this.slots[at] !== EMPTY) at = (at + 1) & mask;
      this.slots[at] = slot;
    }
  }

  /** Room for `length` more bytes: the buffer grows by half, in place. */
  private reserve(length: number): void {
    if (this.end + length <= this.bytes.length) return;
    const size = Math.max(this.end + length, Math.ceil(this.bytes.length * 1.5));
    if (size > MAX_BYTES) throw new RangeError(`more than ${MAX_BYTES} bytes of entries`);
    this.memory.resize(size);
    this.bytes = Buffer.from(this.memory, 0, size);
  }
}

/** FNV-1a over the bytes. */
function hash(bytes: Buffer, start: number, length: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < start + length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}
