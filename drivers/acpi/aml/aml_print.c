/*
 * aml_print.c - objects and the namespace as text, in the formats of
 * ACPICA's acpiexec, so the two can be compared line by line: `evaluate`
 * prints "  [Integer] = 0000000000001234", "  [String] Length 05 = ...",
 * buffers as hex rows with their characters, packages element by element;
 * the namespace dump lists each name with its type, indented by depth.
 */
#include "aml_internal.h"
#include <lib/printer.h>

static const char *const type_names[] = {
	[AML_UNINIT] = "Uninitialized", [AML_INTEGER] = "Integer", [AML_STRING] = "String",
	[AML_BUFFER] = "Buffer", [AML_PACKAGE] = "Package", [AML_FIELD_UNIT] = "FieldUnit",
	[AML_DEVICE] = "Device", [AML_EVENT] = "Event", [AML_METHOD] = "Method",
	[AML_MUTEX] = "Mutex", [AML_REGION] = "Region", [AML_POWER] = "Power",
	[AML_PROCESSOR] = "Processor", [AML_THERMAL] = "Thermal", [AML_BUFFER_FIELD] = "BufferField",
	[AML_DDB] = "DdbHandle", [AML_DEBUG] = "Debug", [AML_REFERENCE] = "Reference",
	[AML_SCOPE] = "Scope",
};

static const char *type_name(u8 t)
{
	return t < ARRAY_SIZE(type_names) && type_names[t] ? type_names[t] : "Unknown";
}

static void indent_to(struct printer *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		pr_puts(p, " ");
}

/* Hex rows of a buffer: "    0000: 01 02 ..  // ..". */
static void hex_rows(struct printer *p, const u8 *d, u32 len, unsigned indent, bool first_inline)
{
	for (u32 row = 0; row < len; row += 16) {
		if (row || !first_inline)
			indent_to(p, indent);
		pr_printf(p, "%04X: ", row);
		for (u32 i = row; i < row + 16; i++) {
			if (i < len)
				pr_printf(p, "%02X ", d[i]);
			else
				pr_puts(p, "   ");
		}
		pr_puts(p, " // ");
		for (u32 i = row; i < row + 16 && i < len; i++)
			pr_printf(p, "%c", d[i] >= 0x20 && d[i] < 0x7f ? d[i] : '.');
		pr_puts(p, "\n");
	}
}

/*
 * print_object() - o as acpiexec prints an evaluation's result, at
 * `indent` spaces; nested packages are printed through an explicit stack
 * (at most 16 levels shown).
 */
static void print_object(struct printer *p, const struct aml_obj *o, unsigned indent)
{
	struct { const struct aml_obj *pkg; u32 next; } stack[16];
	unsigned depth = 0;

	if (!o)
		return;
	for (;;) {
		indent_to(p, indent + 2 * depth);
		if (!o) {
			pr_puts(p, "[Uninitialized]\n");
		} else {
			switch (o->type) {
			case AML_INTEGER:
				pr_printf(p, "[Integer] = %016llX\n", (unsigned long long)o->integer);
				break;
			case AML_STRING:
				pr_printf(p, "[String] Length %02X = \"%s\"\n", o->buf.len,
					  (const char *)o->buf.data);
				break;
			case AML_BUFFER:
				/* acpiexec: up to 16 bytes on the same line */
				pr_printf(p, "[Buffer] Length %02X = ", o->buf.len);
				if (o->buf.len > 16)
					pr_puts(p, "\n");
				else if (o->buf.len)
					pr_puts(p, "    ");
				hex_rows(p, o->buf.data, o->buf.len, indent + 2 * depth + 2, o->buf.len <= 16);
				if (!o->buf.len)
					pr_puts(p, "\n");
				break;
			case AML_PACKAGE:
				pr_printf(p, "[Package] Contains %u Elements:\n", o->pkg.count);
				if (depth < ARRAY_SIZE(stack) && o->pkg.count) {
					stack[depth].pkg = o;
					stack[depth].next = 0;
					depth++;
				}
				break;
			case AML_REFERENCE:
				if (o->ref.kind == AML_REF_NODE) {
					char path[96];
					aml_path_str(o->ref.node, path, sizeof(path));
					pr_printf(p, "[Object Reference] = %s\n", path);
				} else {
					pr_printf(p, "[Object Reference] Index %u\n", o->ref.index);
				}
				break;
			default:
				pr_printf(p, "[%s]\n", type_name(o->type));
				break;
			}
		}
		/* the next element of the innermost package */
		while (depth && stack[depth - 1].next >= stack[depth - 1].pkg->pkg.count)
			depth--;
		if (!depth)
			return;
		o = stack[depth - 1].pkg->pkg.elems[stack[depth - 1].next++];
	}
}

/* aml_print_result() - what acpiexec's `evaluate PATH` prints after its
 * "Evaluation of" line, or its line for no result. */
void aml_print_result(struct printer *p, const char *path, const struct aml_obj *o)
{
	if (!o) {
		pr_printf(p, "No object was returned from evaluation of %s\n", path);
		return;
	}
	print_object(p, o, 2);
}

/* aml_dump_ns() - the names from `from` (NULL: the root) down, one per
 * line: indentation by depth, name, type, and the value of integers and
 * the size of strings, buffers, packages and methods. */
void aml_dump_ns(struct aml_ns *ns, struct aml_node *from, struct printer *p)
{
	struct aml_node *top = from ? from : ns->root;
	unsigned depth = 0;

	for (struct aml_node *n = top; n;) {
		char name[5] = { 0 };
		memcpy(name, &n->name, 4);
		if (n == ns->root)
			name[1] = name[2] = name[3] = 0;
		indent_to(p, 2 * depth);
		const struct aml_obj *o = n->obj;
		pr_printf(p, "%-4s %s", name, o ? type_name(o->type) : "Scope");
		if (o && o->type == AML_INTEGER)
			pr_printf(p, " %016llX", (unsigned long long)o->integer);
		else if (o && o->type == AML_STRING)
			pr_printf(p, " Len %02X \"%.40s\"", o->buf.len, (const char *)o->buf.data);
		else if (o && o->type == AML_BUFFER)
			pr_printf(p, " Len %02X", o->buf.len);
		else if (o && o->type == AML_PACKAGE)
			pr_printf(p, " Elements %02X", o->pkg.count);
		else if (o && o->type == AML_METHOD)
			pr_printf(p, " Args %u Len %04X%s", o->method.flags & 7, o->method.len,
				  o->method.flags & 8 ? " Serialized" : "");
		else if (o && o->type == AML_REGION)
			pr_printf(p, " [%s] %016llX %04llX", o->region.space == 0 ? "SystemMemory" :
				  o->region.space == 1 ? "SystemIO" : o->region.space == 2 ? "PCI_Config" : "Other",
				  (unsigned long long)o->region.base, (unsigned long long)o->region.len);
		else if (o && o->type == AML_FIELD_UNIT)
			pr_printf(p, " Off %llX Len %X", (unsigned long long)o->field.bit_off, o->field.bit_len);
		pr_puts(p, "\n");
		/* depth-first, no recursion */
		if (n->child) {
			n = n->child;
			depth++;
			continue;
		}
		while (n != top && !n->next) {
			n = n->parent;
			depth--;
		}
		n = n == top ? NULL : n->next;
	}
}

void aml_print_stats(struct aml_ns *ns, struct printer *p)
{
	const struct aml_stats *s = &ns->stats;

	pr_printf(p, "aml: %u tables, %u objects, %u methods, %u devices; _STA %u, _INI %u, failures %u; "
		  "load %llu us, init %llu us; arena %zu KiB in use (peak %zu of %zu)\n",
		  s->tables, s->objects, s->methods, s->devices, s->sta_run, s->ini_run, s->failures,
		  (unsigned long long)(s->load_ns / 1000), (unsigned long long)(s->init_ns / 1000),
		  ns->arena.in_use >> 10, ns->arena.peak >> 10,
		  (size_t)(ns->arena.end - ns->arena.base) >> 10);
}
