import { namesReadBy, templateNames } from './template-names';

describe('templateNames', () => {
  it('lists the bare names a template reads, not its functions, filters or attributes', () => {
    expect([...templateNames('{{ fetch.data.rows | length + offset }}')].sort()).toEqual(['fetch', 'offset']);
    expect([...templateNames('{{ now() }} {{ uuid() }} {{ items | map(attribute="id") | join(sep) }}')].sort()).toEqual(['items', 'sep']);
    expect([...templateNames('{{ ctx[key] if flag else workload.x.y }}')].sort()).toEqual(['ctx', 'flag', 'key', 'workload']);
    expect([...templateNames('{% for row in rows %}{{ row.id }}{% endfor %}')]).toEqual(expect.arrayContaining(['rows']));
  });

  it('reads nothing from plain text or a template that does not parse', () => {
    expect(templateNames('just text')).toEqual(new Set());
    expect(templateNames('{{ broken ')).toEqual(new Set());
  });

  it('collects the names of every template inside a value', () => {
    expect([...namesReadBy({ url: '{{ base }}/x', body: [{ id: '{{ step1.id }}' }, 3, null], plain: 'no' })].sort()).toEqual([
      'base',
      'step1',
    ]);
  });
});
