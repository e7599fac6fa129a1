import { OUTPUT_TAIL_LINES, OutputTail } from './output-tail';

describe('OutputTail', () => {
  it('keeps the lines user code printed, by stream, in order', () => {
    const tail = new OutputTail();
    expect(tail.report()).toEqual({});
    tail.push('stdout', 'hello\nworld\n');
    tail.push('stderr', 'careful');
    expect(tail.report()).toEqual({
      output: [
        { stream: 'stdout', text: 'hello' },
        { stream: 'stdout', text: 'world' },
        { stream: 'stderr', text: 'careful' },
      ],
    });
  });

  it('keeps only the last lines, and says how many went before them', () => {
    const tail = new OutputTail();
    for (let i = 0; i < OUTPUT_TAIL_LINES + 5; i++) tail.push('stdout', `line ${i}`);
    const { output } = tail.report();
    expect(output).toHaveLength(OUTPUT_TAIL_LINES + 1);
    expect(output![0]).toEqual({ stream: 'stderr', text: '(5 earlier line(s) not kept)' });
    expect(output![1]).toEqual({ stream: 'stdout', text: 'line 5' });
    expect(output!.at(-1)).toEqual({ stream: 'stdout', text: `line ${OUTPUT_TAIL_LINES + 4}` });
  });

  it('cuts a very long line and bounds the whole', () => {
    const tail = new OutputTail();
    tail.push('stdout', 'x'.repeat(5000));
    expect(tail.report().output![0]!.text).toBe(`${'x'.repeat(2000)}… (3000 more characters)`);
    for (let i = 0; i < 50; i++) tail.push('stdout', 'y'.repeat(2000));
    expect(tail.report().output!.reduce((chars, line) => chars + line.text.length, 0)).toBeLessThan(34 * 1024);
  });
});
