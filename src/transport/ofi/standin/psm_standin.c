/* SPDX-License-Identifier: MIT */
/* Stand-ins for libpsm2.so.2 and libpsm_infinipath.so.1, the libraries behind
 * libfabric's psm2 and psm providers (Debian's libfabric.so.1 links both).
 *
 * The real ones calibrate the CPU's clock in an ELF constructor when they are
 * loaded (about 100 ms of 125 us sleeps each, pinned to CPU 0), in every
 * process that loads libfabric, whether or not an Omni-Path or TrueScale
 * adapter exists.  Where none exists, the network transport (ofi_dl.c) loads
 * these first: the dynamic loader then takes them for libfabric's
 * dependencies by their sonames, and the real libraries, with libinfinipath
 * and libnuma behind them, are never loaded.
 *
 * Built twice from this file, as courier/libpsm2.so.2 (the psm2_* functions,
 * version PSM2_1.0) and courier/libpsm_infinipath.so.1 (the psm_* ones): the
 * functions libfabric 1.17 imports from each.  No constructor, no state.  Each
 * reports that no device exists (PSM_EP_NO_DEVICE, which both libraries
 * number 21) and touches none of its arguments: libfabric's providers check
 * for a device (/dev/hfi1_*) or call psm_init / psm2_init first and give up
 * on that answer, so no other function here is reached.  The error string
 * says what happened, for libfabric's warnings.  No header of either library
 * is used: the caller cleans up the arguments, so one signature serves all. */

#define STANDIN_NO_DEVICE 21 /* PSM_EP_NO_DEVICE, PSM2_EP_NO_DEVICE */

#define STANDIN(name) \
    int name(void);   \
    int name(void) { return STANDIN_NO_DEVICE; }

const char *psm2_error_get_string(int error);
const char *psm2_error_get_string(int error)
{
    (void)error;
    return "no Omni-Path device (Courier's stand-in for libpsm2; COURIER_OFI_PSM_LIBS=1 loads the real one)";
}

const char *psm_error_get_string(int error);
const char *psm_error_get_string(int error)
{
    (void)error;
    return "no TrueScale device (Courier's stand-in for libpsm_infinipath; COURIER_OFI_PSM_LIBS=1 loads the real one)";
}

/* libpsm2.so.2 */
STANDIN(psm2_am_get_parameters)
STANDIN(psm2_am_get_source)
STANDIN(psm2_am_register_handlers_2)
STANDIN(psm2_am_reply_short)
STANDIN(psm2_am_request_short)
STANDIN(psm2_ep_close)
STANDIN(psm2_ep_connect)
STANDIN(psm2_ep_disconnect2)
STANDIN(psm2_ep_epid_lookup2)
STANDIN(psm2_ep_open)
STANDIN(psm2_ep_open_opts_get_defaults)
STANDIN(psm2_epaddr_getctxt)
STANDIN(psm2_epaddr_setctxt)
STANDIN(psm2_epaddr_to_epid)
STANDIN(psm2_error_register_handler)
STANDIN(psm2_finalize)
STANDIN(psm2_get_capability_mask)
STANDIN(psm2_info_query)
STANDIN(psm2_init)
STANDIN(psm2_mq_cancel)
STANDIN(psm2_mq_improbe2)
STANDIN(psm2_mq_imrecv)
STANDIN(psm2_mq_init)
STANDIN(psm2_mq_ipeek)
STANDIN(psm2_mq_iprobe2)
STANDIN(psm2_mq_irecv2)
STANDIN(psm2_mq_isend2)
STANDIN(psm2_mq_send2)
STANDIN(psm2_mq_test2)
STANDIN(psm2_mq_wait2)
STANDIN(psm2_poll)

/* libpsm_infinipath.so.1 */
STANDIN(psm_am_get_parameters)
STANDIN(psm_am_register_handlers)
STANDIN(psm_am_reply_short)
STANDIN(psm_am_request_short)
STANDIN(psm_ep_close)
STANDIN(psm_ep_connect)
STANDIN(psm_ep_epid_lookup)
STANDIN(psm_ep_num_devunits)
STANDIN(psm_ep_open)
STANDIN(psm_ep_open_opts_get_defaults)
STANDIN(psm_epaddr_getctxt)
STANDIN(psm_epaddr_setctxt)
STANDIN(psm_error_register_handler)
STANDIN(psm_finalize)
STANDIN(psm_init)
STANDIN(psm_mq_cancel)
STANDIN(psm_mq_finalize)
STANDIN(psm_mq_init)
STANDIN(psm_mq_ipeek)
STANDIN(psm_mq_iprobe)
STANDIN(psm_mq_irecv)
STANDIN(psm_mq_isend)
STANDIN(psm_mq_send)
STANDIN(psm_mq_test)
