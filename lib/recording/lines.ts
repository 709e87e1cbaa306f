// Newline-delimited text from a byte stream, decoded once per block (asciicast is
// UTF-8 text). Yields [lineNumber, text, terminated]; the last line may be
// unterminated (a recorder killed mid-write).

export async function* lines(chunks: AsyncIterable<Uint8Array>): AsyncIterable<[number, string, boolean]> {
  const dec = new TextDecoder("utf-8");
  let carry = "";
  let no = 0;
  for await (const chunk of chunks) {
    const text = carry + dec.decode(chunk, { stream: true });
    let start = 0;
    while (true) {
      const nl = text.indexOf("\n", start);
      if (nl < 0) break;
      no++;
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      yield [no, text.slice(start, end), true];
      start = nl + 1;
    }
    carry = text.slice(start);
  }
  carry += dec.decode();
  if (carry.length) yield [no + 1, carry, false];
}
