/*
 * aml_sync.c - Mutex and Event objects (ACPI 6.5 19.6.2, 19.6.123, 19.6.104,
 * 19.6.117, 19.6.144, 19.6.116): Acquire, Release, Signal, Wait, Reset.
 *
 * One thread runs AML, so nothing else can hold a mutex or signal an event
 * while a method waits: Acquire succeeds at once (a mutex held by this same
 * evaluation is taken again, its depth counted), Release of a mutex not
 * held fails, Wait succeeds if the event was signalled and otherwise
 * reports a timeout at once.  Sync levels are not checked.
 */
#include "aml_internal.h"

/* aml_sync_op() - op (0x5b23 Acquire, 0x5b24 Signal, 0x5b25 Wait, 0x5b26
 * Reset, 0x5b27 Release) on the object t names; Acquire's and Wait's
 * result (0, or Ones for a timeout) into *out. */
int aml_sync_op(struct aml_ctx *c, struct aml_state *st, const u8 *at, u16 op,
		struct aml_target *t, struct aml_obj **out)
{
	int r = AML_OK;
	struct aml_obj *o = t->kind == T_NODE ? t->node->obj : NULL;
	u8 want = (op == 0x5b23 || op == 0x5b27) ? AML_MUTEX : AML_EVENT;
	u64 timeout = 0;	/* read, then not needed: no one else can hold or signal */

	if (op == 0x5b23) {
		if (st->end - st->p < 2)
			r = aml_fail(c, at, AML_EPARSE, "Acquire truncated");
		else
			timeout = st->p[0] | st->p[1] << 8, st->p += 2;
	} else if (op == 0x5b25) {
		struct aml_obj *v = NULL;
		r = aml_eval_term(c, st, &v);
		if (!r)
			r = aml_to_integer(c, v, &timeout, at);
		aml_put(c->ns, v);
	}
	(void)timeout;
	if (!r && (!o || o->type != want))
		r = aml_fail(c, at, AML_ETYPE, "%s of a non-%s", op == 0x5b23 ? "Acquire" :
			     op == 0x5b27 ? "Release" : "event op", want == AML_MUTEX ? "Mutex" : "Event");
	if (r)
		return r;
	if (op == 0x5b23) {
		o->mutex.depth++;
		*out = aml_new_integer(c->ns, 0);
	} else if (op == 0x5b27) {
		if (!o->mutex.depth)
			r = aml_fail(c, at, AML_ETYPE, "Release of a Mutex not held");
		else
			o->mutex.depth--;
	} else if (op == 0x5b24) {
		o->event.count++;
	} else if (op == 0x5b26) {
		o->event.count = 0;
	} else {	/* Wait: nothing else can signal meanwhile */
		bool got = o->event.count > 0;
		if (got)
			o->event.count--;
		*out = aml_new_integer(c->ns, got ? 0 : aml_int_mask(c->ns));
	}
	return r;
}
