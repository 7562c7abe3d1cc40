/*
 * virtio_pci_internal.h - the register layout of the modern virtio-pci
 * transport (drivers/virtio/virtio_pci.c): offsets in the common window,
 * in a vendor capability, and of the ring inside its page.  For the
 * transport itself and the host tests' fake device; drivers use
 * include/drivers/virtio.h.
 */
#ifndef DRIVERS_VIRTIO_PCI_INTERNAL_H
#define DRIVERS_VIRTIO_PCI_INTERNAL_H

/* common configuration registers (offsets in the common window) */
#define VCC_DFSELECT		0x00	/* le32 device_feature_select */
#define VCC_DF			0x04	/* le32 device_feature */
#define VCC_GFSELECT		0x08	/* le32 driver_feature_select */
#define VCC_GF			0x0c	/* le32 driver_feature */
#define VCC_NUM_QUEUES		0x12	/* le16 */
#define VCC_STATUS		0x14	/* u8 device_status */
#define VCC_CFG_GEN		0x15	/* u8 config_generation */
#define VCC_Q_SELECT		0x16	/* le16 */
#define VCC_Q_SIZE		0x18	/* le16 */
#define VCC_Q_ENABLE		0x1c	/* le16 */
#define VCC_Q_NOFF		0x1e	/* le16 queue_notify_off */
#define VCC_Q_DESC		0x20	/* le64 */
#define VCC_Q_AVAIL		0x28	/* le64 */
#define VCC_Q_USED		0x30	/* le64 */
#define VCC_MIN_LEN		0x38	/* the window must hold all of the above */

/* one vendor capability in config space (offsets from the capability) */
#define VCAP_LEN		2	/* u8 cap_len */
#define VCAP_TYPE		3	/* u8 cfg_type */
#define VCAP_BAR		4	/* u8 bar */
#define VCAP_OFFSET		8	/* le32 */
#define VCAP_LENGTH		12	/* le32 */
#define VCAP_NOTIFY_MULT	16	/* le32, notify capability only */

/* the ring inside its one page (VIRTQ_MAX_SIZE = 64 fits: 1 KiB + 134 + 518 bytes) */
#define RING_AVAIL_OFF		1024
#define RING_USED_OFF		2048
#define BOUNCE_RESP_OFF		2048	/* response half of the bounce page */

#endif
