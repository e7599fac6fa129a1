import type { Bus, NotificationKind, Notifications, Subject, SubscribeOptions, Unsubscribe } from './bus';

interface Subscription {
  handler: (message: Notifications[NotificationKind]) => void;
  queue?: string;
}

/**
 * The bus of the modular monolith: delivery on the next microtask, so a
 * publisher never runs a consumer inside its own call stack (or transaction).
 * A queue group gets each message once, round-robin, like NATS queue groups;
 * a `*` token of a subscription matches any one token of a subject, as in NATS.
 */
export class InProcessBus implements Bus {
  private readonly subscriptions = new Map<string, Subscription[]>();
  private readonly cursors = new Map<string, number>();
  private closed = false;

  reaches(subject: string): boolean {
    return (this.subscriptions.get(subject)?.length ?? 0) > 0;
  }

  publish<K extends NotificationKind>(subject: Subject<K>, message: Notifications[K]): void {
    if (this.closed) return;
    // As in NATS, the members of a queue group are every matching subscription with its name, whatever their subjects.
    const groups = new Map<string, Subscription[]>();
    for (const [pattern, subscribers] of this.subscriptions) {
      if (!matches(pattern, subject)) continue;
      for (const subscription of subscribers) {
        if (subscription.queue === undefined) this.deliver(subscription, message);
        else groups.set(subscription.queue, [...(groups.get(subscription.queue) ?? []), subscription]);
      }
    }
    for (const [queue, members] of groups) {
      const key = `${subject}\u0000${queue}`;
      const next = this.cursors.get(key) ?? 0;
      this.cursors.set(key, next + 1);
      this.deliver(members[next % members.length]!, message);
    }
  }

  subscribe<K extends NotificationKind>(
    subject: Subject<K>,
    handler: (message: Notifications[K]) => void,
    options: SubscribeOptions = {},
  ): Unsubscribe {
    // A subscription's pattern matches only subjects of its kind (`Subjects` names the kind last), so its handler gets messages of that kind.
    const subscription: Subscription = {
      handler: handler as Subscription['handler'],
      ...(options.queue !== undefined ? { queue: options.queue } : {}),
    };
    this.subscriptions.set(subject, [...(this.subscriptions.get(subject) ?? []), subscription]);
    return () => {
      this.subscriptions.set(
        subject,
        (this.subscriptions.get(subject) ?? []).filter((s) => s !== subscription),
      );
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.subscriptions.clear();
  }

  private deliver(subscription: Subscription, message: Notifications[NotificationKind]): void {
    queueMicrotask(() => {
      // A consumer's failure is its own: the bus only notifies.
      try {
        subscription.handler(message);
      } catch {
        /* consumers log their own errors */
      }
    });
  }
}

/** NATS subject matching for `*` (one token); `>` is not used by the runtime. */
function matches(pattern: string, subject: string): boolean {
  if (pattern === subject) return true;
  if (!pattern.includes('*')) return false;
  const want = pattern.split('.');
  const have = subject.split('.');
  return want.length === have.length && want.every((token, i) => token === '*' || token === have[i]);
}
