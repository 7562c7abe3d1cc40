/*
 * memhp_qemu.c - QEMU's memory hotplug device as a host model (see
 * memhp_qemu.h): the register block the DSDT's MHPC methods read and
 * write.  Context: host, one thread.
 */
#include "memhp_qemu.h"
#include <lib/string.h>

#define PORT	MEMHP_QEMU_PORT
#define NSLOTS	MEMHP_QEMU_SLOTS

struct memhp_qemu q;

/* The 24 register bytes QEMU shows for the selected slot. */
static u8 reg_byte(unsigned off)
{
	const struct qdimm *d = q.sel < NSLOTS ? &q.d[q.sel] : NULL;
	u64 v = 0;

	if (!d)
		return 0;
	if (off < 0x10) {
		v = off < 8 ? d->base : d->size;
		if (q.garbage_crs)
			v = ~0ull;
		return (u8)(v >> (8 * (off & 7)));
	}
	if (off < 0x14)
		return (u8)(d->pxm >> (8 * (off - 0x10)));
	if (off == 0x14)
		return (u8)(d->present | d->ins << 1 | d->rmv << 2);
	return 0;
}

static int io_read(void *ctx, u32 port, unsigned width, u64 *val)
{
	(void)ctx;
	*val = 0;
	if (port < PORT || port >= PORT + 0x18)
		return 0;	/* other devices' ports: nothing there */
	if (q.io_fails)
		return -1;
	q.nio++;
	for (unsigned i = 0; i < width && port - PORT + i < 0x18; i++)
		*val |= (u64)reg_byte(port - PORT + i) << (8 * i);
	return 0;
}

static int io_write(void *ctx, u32 port, unsigned width, u64 val)
{
	struct qdimm *d;

	(void)ctx;
	(void)width;
	if (port < PORT || port >= PORT + 0x18)
		return 0;
	if (q.io_fails)
		return -1;
	q.nio++;
	d = q.sel < NSLOTS ? &q.d[q.sel] : NULL;
	switch (port - PORT) {
	case 0x00:
		q.sel = (u32)val;
		break;
	case 0x04:
		q.ost_ev = (u32)val;
		break;
	case 0x08:		/* the status write makes QEMU report the _OST */
		if (q.nost < ARRAY_SIZE(q.ost))
			q.ost[q.nost++] = (typeof(q.ost[0])){ q.sel, q.ost_ev, (u32)val, q.nio };
		break;
	case 0x14:		/* one control bit per write, the first that is set */
		if (!d)
			break;
		if (val & 2)
			d->ins = false;
		else if (val & 4)
			d->rmv = false;
		else if (val & 8) {
			d->present = false;
			d->ejects++;
		}
		break;
	}
	return 0;
}

static int pci_read(void *ctx, u16 seg, u8 bus, u8 dev, u8 fn, u16 off, unsigned width,
		    u64 *val)
{
	(void)ctx, (void)seg, (void)bus, (void)dev, (void)fn, (void)off;
	*val = width == 4 ? 0xffffffffu : width == 2 ? 0xffff : 0xff;
	return 0;
}

static int pci_write(void *ctx, u16 seg, u8 bus, u8 dev, u8 fn, u16 off, unsigned width,
		     u64 val)
{
	(void)ctx, (void)seg, (void)bus, (void)dev, (void)fn, (void)off, (void)width, (void)val;
	return 0;
}

static int mem_read(void *ctx, u64 phys, unsigned width, u64 *val)
{
	(void)ctx, (void)phys, (void)width;
	*val = 0;
	return 0;
}

static int mem_write(void *ctx, u64 phys, unsigned width, u64 val)
{
	(void)ctx, (void)phys, (void)width, (void)val;
	return 0;
}

/* memhp_qemu_platform() - see memhp_qemu.h. */
void memhp_qemu_platform(struct aml_platform *plat)
{
	plat->io_read = io_read;
	plat->io_write = io_write;
	plat->mem_read = mem_read;
	plat->mem_write = mem_write;
	plat->pci_read = pci_read;
	plat->pci_write = pci_write;
}

/* memhp_qemu_plug() - see memhp_qemu.h. */
void memhp_qemu_plug(unsigned slot, u64 base, u64 size)
{
	q.d[slot] = (struct qdimm){ .present = true, .ins = true, .base = base, .size = size };
}
