/*
 * list.h - circular doubly linked lists with a sentinel head, as in Linux.
 *
 * An empty list's head points to itself.  Entries are embedded in the
 * structure they link (struct page's lru), and list_entry() gets back to it.
 * Context: any; callers provide the locking.
 */
#ifndef LIB_LIST_H
#define LIB_LIST_H

#include <lib/types.h>

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name) { &(name), &(name) }

static inline void INIT_LIST_HEAD(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline void list_insert_between(struct list_head *n, struct list_head *prev,
				       struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

/* list_add() - insert n right after head (stack order). */
static inline void list_add(struct list_head *n, struct list_head *head)
{
	list_insert_between(n, head, head->next);
}

/* list_add_tail() - insert n right before head (queue order). */
static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	list_insert_between(n, head->prev, head);
}

/* list_del() - unlink e; its pointers are poisoned so a second del faults. */
static inline void list_del(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	e->next = (struct list_head *)(uintptr_t)0xdead000000000100ULL;
	e->prev = (struct list_head *)(uintptr_t)0xdead000000000122ULL;
}

/* list_move() / list_move_tail() - unlink e and add it to another list. */
static inline void list_move(struct list_head *e, struct list_head *head)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	list_add(e, head);
}

static inline void list_move_tail(struct list_head *e, struct list_head *head)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	list_add_tail(e, head);
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)
#define list_last_entry(head, type, member) list_entry((head)->prev, type, member)

#define list_for_each(pos, head) \
	for (pos = (head)->next; pos != (head); pos = pos->next)

#define list_for_each_entry(pos, head, member)					\
	for (pos = list_entry((head)->next, __typeof__(*pos), member);		\
	     &pos->member != (head);						\
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))

#define list_for_each_entry_safe(pos, n, head, member)				\
	for (pos = list_entry((head)->next, __typeof__(*pos), member),		\
	     n = list_entry(pos->member.next, __typeof__(*pos), member);	\
	     &pos->member != (head);						\
	     pos = n, n = list_entry(n->member.next, __typeof__(*n), member))

#endif
